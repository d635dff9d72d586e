import { describe, expect, it } from 'vitest';
import { redact_secrets } from './redact.js';

describe('redact_secrets', () => {
  it('hides configured values, longest first', () => {
    expect(redact_secrets('pw=hunter2hunter2 and hunter2', ['hunter2', 'hunter2hunter2'])).toBe(
      'pw=[redacted] and [redacted]',
    );
  });

  it('ignores values too short to be secrets', () => {
    expect(redact_secrets('debug on', ['on', '1'])).toBe('debug on');
  });

  it('hides token-shaped strings without being told', () => {
    const text = [
      'Authorization: Bearer abc.def-123',
      'key sk-ant-api03-abcdefghijklmnop',
      'gh ghp_abcdefghijklmnopqrstuvwxyz012345',
      'url https://user:pass@example.com/x?api_key=s3cr3t&x=1',
      '"password": "p4ssw0rd"',
      'aws AKIAABCDEFGHIJKLMNOP',
    ].join('\n');
    const redacted = redact_secrets(text);
    for (const secret of [
      'abc.def-123',
      'sk-ant-api03',
      'ghp_abc',
      'pass@',
      's3cr3t',
      'p4ssw0rd',
      'AKIAABCD',
    ]) {
      expect(redacted).not.toContain(secret);
    }
    expect(redacted).toContain('https://user:[redacted]@example.com');
    expect(redacted).toContain('&x=1');
  });

  it('leaves ordinary text alone', () => {
    const text = "MCP server 'files' exited before answering initialize: ENOENT /tmp/a.txt";
    expect(redact_secrets(text)).toBe(text);
  });
});
