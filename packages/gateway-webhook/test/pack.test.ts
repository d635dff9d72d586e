/**
 * What an operator gets from `npx @lich/gateway-webhook`: the tarball and the tarballs of the
 * `@lich` packages it depends on, installed into an empty prefix (their `workspace:*` ranges
 * made exact, as publishing does; third-party packages linked from the workspace's store, since
 * no test may use the network), hold no ink, no react and no platform SDK, and the installed bin
 * starts. Packs the dist the global setup built; builds nothing.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InstalledClosure, install_closure } from '../../../tooling/vitest/install_closure.js';
import type { PackedPackage } from '../../../tooling/vitest/pack.js';

const run = promisify(execFile);
const FORBIDDEN =
  /^(ink|react|react-dom|ws|grammy|discord\.js|tmi\.js|@discordjs\/.*|@lich\/(cli|tui|serve|acp|gateway-(telegram|discord|twitch)))$/;

let prefix = '';
let packs: PackedPackage[] = [];
/** Every package name installed (the whole tree, third-party dependencies' own included). */
let installed = new Set<string>();
let closure: InstalledClosure | undefined;

beforeAll(async () => {
  closure = await install_closure('@lich/gateway-webhook');
  ({ prefix, packs, installed } = closure);
}, 180_000);

afterAll(async () => {
  await closure?.cleanup();
});

describe('the installed @lich/gateway-webhook', () => {
  it('is packed with its dist, README and bin only', () => {
    const own = packs[0] as PackedPackage;
    const allowed = /^package\/(dist\/[^/].*|README\.md|package\.json|LICENSE)$/;
    expect(own.entries.filter((entry) => !allowed.test(entry))).toEqual([]);
    expect(own.entries).toContain('package/dist/bin.js');
    expect(own.entries.filter((entry) => /\.test\.|tsbuildinfo/.test(entry))).toEqual([]);
    expect(own.manifest.bin).toEqual({ 'lich-gateway-webhook': './dist/bin.js' });
  });

  it('holds no ink, no react and no platform SDK', () => {
    expect([...installed].filter((name) => FORBIDDEN.test(name))).toEqual([]);
    expect(installed.has('@lich/gateway')).toBe(true);
    expect(installed.has('@lich/agent')).toBe(true);
  });

  it('starts its bin from the prefix: help, then the agent, refusing without a secret', async () => {
    const bin = join(prefix, 'node_modules', '@lich', 'gateway-webhook', 'dist', 'bin.js');
    expect((await readFile(bin, 'utf8')).startsWith('#!/usr/bin/env node\n')).toBe(true);
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: prefix, NO_COLOR: '1' };
    const help = await run(process.execPath, [bin, '--help'], { cwd: prefix, env });
    expect(help.stdout).toMatch(/^lich-gateway-webhook — a Lich bot behind a signed HTTP webhook/);
    const refused = await run(
      process.execPath,
      [bin, '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm'],
      { cwd: prefix, env },
    ).catch((error: { code: number; stderr: string }) => error);
    expect(refused).toMatchObject({ code: 2 });
    expect((refused as { stderr: string }).stderr).toContain('set LICH_WEBHOOK_SECRET');
  });
});
