import { stat } from 'node:fs/promises';
import { make_temp_dir, type TempDir } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PAIRING_ALPHABET } from './pairing_code.js';
import { PairingStore } from './pairing_store.js';

let temp: TempDir;
let now: number;
let store: PairingStore;

beforeEach(async () => {
  temp = await make_temp_dir({ prefix: 'lich-pairing-' });
  now = 1_000_000;
  store = new PairingStore({ dir: `${temp.path}/pairing`, now: () => now });
});

afterEach(async () => {
  await temp.cleanup();
});

const MINUTE = 60_000;

async function code_for(id: string): Promise<string> {
  const result = await store.request_code('webhook', { id, name: id });
  if (!result.ok) throw new Error(`no code for ${id}: ${result.reason}`);
  return result.code;
}

describe('PairingStore', () => {
  it('gives 8-character codes of the unambiguous alphabet, stored only as hashes', async () => {
    const code = await code_for('u1');
    expect(code).toMatch(new RegExp(`^[${PAIRING_ALPHABET}]{8}$`));
    expect(code).not.toMatch(/[01OI]/);
    const text = await import('node:fs/promises').then((fs) =>
      fs.readFile(store.file_path('webhook'), 'utf8'),
    );
    expect(text).not.toContain(code);
  });

  it('approves a code once, case and dashes aside, into a 0600 file', async () => {
    const code = await code_for('u1');
    expect(await store.is_approved('webhook', 'u1')).toBe(false);
    const typed = `${code.slice(0, 4).toLowerCase()}-${code.slice(4)}`;
    expect(await store.approve('webhook', typed)).toEqual({
      ok: true,
      user_id: 'u1',
      user_name: 'u1',
    });
    expect(await store.is_approved('webhook', 'u1')).toBe(true);
    expect((await stat(store.file_path('webhook'))).mode & 0o777).toBe(0o600);
    expect((await stat(store.dir)).mode & 0o777).toBe(0o700);
    expect((await store.approve('webhook', code)).ok).toBe(false);
    // another platform is another file
    expect(await store.is_approved('telegram', 'u1')).toBe(false);
  });

  it('lets a code expire after an hour', async () => {
    const code = await code_for('u1');
    expect(await store.pending('webhook')).toHaveLength(1);
    now += 60 * MINUTE;
    expect(await store.pending('webhook')).toHaveLength(0);
    expect(await store.approve('webhook', code)).toMatchObject({ ok: false, reason: 'invalid' });
  });

  it('keeps at most 3 codes pending per platform', async () => {
    await code_for('u1');
    await code_for('u2');
    await code_for('u3');
    expect(await store.request_code('webhook', { id: 'u4', name: '' })).toEqual({
      ok: false,
      reason: 'too_many_pending',
    });
    expect((await store.request_code('telegram', { id: 'u4', name: '' })).ok).toBe(true);
    now += 60 * MINUTE; // the three expire
    expect((await store.request_code('webhook', { id: 'u4', name: '' })).ok).toBe(true);
  });

  it('gives a user one code per 10 minutes, the new one replacing the old', async () => {
    const first = await code_for('u1');
    now += 9 * MINUTE;
    expect(await store.request_code('webhook', { id: 'u1', name: '' })).toEqual({
      ok: false,
      reason: 'rate_limited',
    });
    now += MINUTE;
    const second = await code_for('u1');
    expect(await store.pending('webhook')).toHaveLength(1);
    expect((await store.approve('webhook', first)).ok).toBe(false);
    expect((await store.approve('webhook', second)).ok).toBe(true);
  });

  it('locks pairing out after 5 failed approvals, for an hour', async () => {
    const code = await code_for('u1');
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      expect(await store.approve('webhook', 'ZZZZZZZZ')).toEqual({
        ok: false,
        reason: 'invalid',
        failures: attempt,
      });
    }
    expect(await store.approve('webhook', 'ZZZZZZZZ')).toMatchObject({ reason: 'locked_out' });
    // even the right code is refused now, and no new code is given
    expect(await store.approve('webhook', code)).toMatchObject({ reason: 'locked_out' });
    expect(await store.request_code('webhook', { id: 'u2', name: '' })).toEqual({
      ok: false,
      reason: 'locked_out',
    });
    now += 59 * MINUTE;
    expect(await store.approve('webhook', code)).toMatchObject({ reason: 'locked_out' });
    now += MINUTE;
    expect(await store.approve('webhook', code)).toMatchObject({ ok: false, reason: 'invalid' });
  });

  it('counts only consecutive failures', async () => {
    for (let attempt = 0; attempt < 4; attempt += 1) await store.approve('webhook', 'ZZZZZZZZ');
    expect((await store.approve('webhook', await code_for('u1'))).ok).toBe(true);
    expect(await store.approve('webhook', 'ZZZZZZZZ')).toMatchObject({ failures: 1 });
  });

  it('serialises two stores on the same folder (the gateway and the pair command)', async () => {
    const other = new PairingStore({ dir: store.dir, now: () => now });
    const results = await Promise.all([
      store.request_code('webhook', { id: 'a', name: '' }),
      other.request_code('webhook', { id: 'b', name: '' }),
      store.request_code('webhook', { id: 'c', name: '' }),
      other.request_code('webhook', { id: 'd', name: '' }),
    ]);
    expect(results.filter((result) => result.ok)).toHaveLength(3);
    expect(await store.pending('webhook')).toHaveLength(3);
  });

  it('revokes an approval', async () => {
    await store.approve('webhook', await code_for('u1'));
    expect(await store.revoke('webhook', 'u1')).toBe(true);
    expect(await store.is_approved('webhook', 'u1')).toBe(false);
    expect(await store.revoke('webhook', 'u1')).toBe(false);
  });
});
