import { describe, expect, it, vi } from 'vitest';
import { FakeClient } from '../test/fake_client.js';
import type { ConnectionState } from './client.js';
import { deferred_client } from './deferred_client.js';

describe('deferred_client', () => {
  it('opens the backend on the first call, once, and forwards calls to it', async () => {
    const fake = new FakeClient();
    const open = vi.fn(async () => fake);
    const client = deferred_client(open, 'local');
    expect(open).not.toHaveBeenCalled();
    expect(client.epoch).toBe('');
    const [info, listed] = await Promise.all([client.create(), client.list()]);
    expect(open).toHaveBeenCalledTimes(1);
    expect(info.session_id).toBe('session-1');
    expect(listed).toHaveLength(1);
    expect(client.epoch).toBe('epoch-1');
    await client.prompt('session-1', 'hi', { client_request_id: 'r1' });
    expect(fake.calls_of('prompt')).toEqual([['session-1', 'hi', { client_request_id: 'r1' }]]);
  });

  it('rejects every call with the error of a backend that could not be opened', async () => {
    const client = deferred_client(async () => {
      throw new Error('no provider is configured');
    }, 'local');
    await expect(client.create()).rejects.toThrow('no provider is configured');
    await expect(client.list()).rejects.toThrow('no provider is configured');
    await expect(client.close()).resolves.toBeUndefined();
  });

  it('attaches connection listeners given early, and closes only what it opened', async () => {
    const fake = new FakeClient();
    const open = vi.fn(async () => fake);
    const unopened = deferred_client(open, 'serve');
    await unopened.close();
    expect(open).not.toHaveBeenCalled();

    const client = deferred_client(async () => fake, 'serve');
    const seen: ConnectionState[] = [];
    const stop = client.on_connection((state) => seen.push(state));
    await client.create();
    fake.report({ kind: 'lost', reason: 'gone' });
    stop();
    fake.report({ kind: 'up' });
    expect(seen).toEqual([{ kind: 'lost', reason: 'gone' }]);
    await client.close();
    await client.close();
    expect(fake.calls_of('close')).toHaveLength(1);
  });
});
