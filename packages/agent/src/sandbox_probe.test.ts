import { describe, expect, it } from 'vitest';
import { SandboxProbe } from './sandbox_probe.js';

describe('SandboxProbe', () => {
  it('is off at once when the config turns the sandbox off', async () => {
    const probe = new SandboxProbe({ off: true, env: {} });
    expect(probe.kind_now()).toBe('off');
    expect(await probe.kind()).toBe('off');
  });

  it('knows nothing before the probe, then the same kind each time', async () => {
    const probe = new SandboxProbe({ off: false, env: process.env });
    expect(probe.kind_now()).toBeUndefined();
    const kind = await probe.kind();
    expect(kind).not.toBe('off');
    expect(probe.kind_now()).toBe(kind);
    expect(probe.kind()).toBe(probe.kind());
  });
});
