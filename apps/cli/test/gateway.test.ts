/**
 * `lich gateway`: the platform package is imported on demand (`@lich/gateway-webhook` is a dev
 * dependency of the CLI here, as it is installed next to lich for real), a missing one is named
 * with the command that installs it, and `pair` approves a code in the work dir's pairing store.
 */
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { PairingStore } from '@lich/gateway';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, make_sandbox, run_lich, type Sandbox } from './helpers.js';

let sandbox: Sandbox;

beforeEach(async () => {
  sandbox = await make_sandbox();
});

afterEach(async () => {
  await sandbox.cleanup();
});

const lich = (args: string[]) => run_lich(args, { cwd: sandbox.work_dir, env: sandbox.env });

describe('lich gateway', () => {
  it('in a checkout, runs the platform package built next to it (S11, C36)', async () => {
    // the Twitch package is not a dependency of the CLI: found in the workspace
    const result = await lich(['gateway', 'twitch', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^lich gateway twitch — /);
  });

  it('installed on its own, says how to install a platform that is not installed', async () => {
    // the bin through a link outside the checkout: no workspace to find the package in
    const outside = join(sandbox.temp.path, 'installed');
    await mkdir(outside, { recursive: true });
    await symlink(BIN, join(outside, 'bin.cjs'));
    const result = await run_lich(['gateway', 'twitch'], {
      cwd: sandbox.work_dir,
      env: sandbox.env,
      script: join(outside, 'bin.cjs'),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('the twitch gateway is not installed');
    expect(result.stderr).toContain('npm i -g @lich/gateway-twitch');
    expect(result.stderr).toContain('npx @lich/gateway-twitch');
  });

  it('pair works for any platform without its package, with names in both lists (S5, S9)', async () => {
    const store = new PairingStore({ dir: join(sandbox.work_dir, '.lich', 'gateway', 'pairing') });
    const first = await store.request_code('twitch', { id: 't1', name: 'Tess' });
    const second = await store.request_code('twitch', { id: 't2', name: 'Tom' });
    if (!first.ok || !second.ok) throw new Error('no code');
    const outside = join(sandbox.temp.path, 'installed');
    await mkdir(outside, { recursive: true });
    await symlink(BIN, join(outside, 'bin.cjs'));
    const run = (args: string[]) =>
      run_lich(args, { cwd: sandbox.work_dir, env: sandbox.env, script: join(outside, 'bin.cjs') });
    const approved = await run(['gateway', 'pair', 'twitch', first.code]);
    expect(approved).toMatchObject({ code: 0 });
    expect(approved.stdout).toContain('let in t1 (Tess) on twitch');
    const listed = await run(['gateway', 'pair', 'twitch']);
    expect(listed.stdout).toMatch(/waiting \(1\):\n {2}t2 {2}Tom/);
    expect(listed.stdout).toMatch(/let in \(1\):\n {2}t1 {2}Tess/);
  });

  it('refuses a platform that does not exist, with the nearest one', async () => {
    const result = await lich(['gateway', 'webhok']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no gateway for 'webhok'/);
    expect(result.stderr).toMatch(/did you mean 'webhook'\?/);
  });

  it('hands over to the platform package: its help', async () => {
    const result = await lich(['gateway', 'webhook', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^lich gateway webhook — a Lich bot behind a signed HTTP webhook/,
    );
    expect(result.stdout).toContain('LICH_WEBHOOK_SECRET');
    const plain = await lich(['gateway', '--help']);
    expect(plain.stdout).toMatch(/^Usage: lich gateway <platform>/);
  });

  it('refuses to start without a signing secret, naming the variable', async () => {
    const result = await lich([
      'gateway',
      'webhook',
      '--base-url',
      'http://127.0.0.1:9/v1',
      '-m',
      'm',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('set LICH_WEBHOOK_SECRET');
  });

  it('pair: lets in the user a code was given to, in the work dir, once', async () => {
    const store = new PairingStore({ dir: join(sandbox.work_dir, '.lich', 'gateway', 'pairing') });
    const given = await store.request_code('webhook', { id: 'u42', name: 'Ann' });
    if (!given.ok) throw new Error(given.reason);
    const result = await lich(['gateway', 'pair', 'webhook', given.code.toLowerCase()]);
    expect(result).toMatchObject({ code: 0 });
    expect(result.stdout).toContain('let in u42 (Ann) on webhook');
    expect(await store.is_approved('webhook', 'u42')).toBe(true);
    const again = await lich(['gateway', 'pair', 'webhook', given.code]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/no waiting pairing request has that code/);
    const listed = await lich(['gateway', 'webhook', 'pair']);
    expect(listed.stdout).toMatch(/let in \(1\):\n {2}u42 {2}Ann/);
  });
});
