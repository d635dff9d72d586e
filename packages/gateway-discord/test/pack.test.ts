/**
 * What an operator gets from `npx @lich/gateway-discord`: installed from its tarball (and its
 * `@lich` closure's) into an empty prefix, it holds discord.js and the agent but no ink, no react and no
 * other platform's SDK, and its bin starts.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InstalledClosure, install_closure } from '../../../tooling/vitest/install_closure.js';

const run = promisify(execFile);
const FORBIDDEN =
  /^(ink|react|react-dom|grammy|tmi\.js|@lich\/(gateway-(telegram|twitch|webhook))|@lich\/(cli|tui|serve|acp))$/;
let closure: InstalledClosure | undefined;

beforeAll(async () => {
  closure = await install_closure('@lich/gateway-discord');
}, 180_000);

afterAll(async () => {
  await closure?.cleanup();
});

describe('the installed @lich/gateway-discord', () => {
  it('is packed with its dist, README and bin only', () => {
    const own = closure?.packs[0];
    const allowed = /^package\/(dist\/[^/].*|README\.md|package\.json|LICENSE)$/;
    expect(own?.entries.filter((entry) => !allowed.test(entry))).toEqual([]);
    expect(own?.entries).toContain('package/dist/bin.js');
    expect(own?.manifest.bin).toEqual({ 'lich-gateway-discord': './dist/bin.js' });
  });

  it('holds its SDK and the agent, and nothing of the TUI or another platform', () => {
    const installed = [...(closure?.installed ?? [])];
    expect(installed.filter((name) => FORBIDDEN.test(name))).toEqual([]);
    expect(installed).toContain('discord.js');
    expect(installed).toContain('@lich/agent');
  });

  it('starts its bin from the prefix: help, and a refusal without credentials', async () => {
    const prefix = closure?.prefix as string;
    const bin = join(prefix, 'node_modules', '@lich', 'gateway-discord', 'dist', 'bin.js');
    expect((await readFile(bin, 'utf8')).startsWith('#!/usr/bin/env node\n')).toBe(true);
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: prefix, NO_COLOR: '1' };
    const help = await run(process.execPath, [bin, '--help'], { cwd: prefix, env });
    expect(help.stdout).toMatch(/^lich-gateway-discord — /);
    const refused = await run(
      process.execPath,
      [bin, '--allow-user', '1', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm'],
      { cwd: prefix, env },
    ).catch((error: { code: number; stderr: string }) => error);
    expect(refused).toMatchObject({ code: 2 });
    expect((refused as { stderr: string }).stderr).toContain('DISCORD_BOT_TOKEN');
  });
});
