/**
 * The pack test of every `@lich/gateway-<platform>`: what an operator gets from `npx` (installed
 * from its tarball and its `@lich` closure's into an empty prefix, see `install_closure`) holds its
 * own platform's SDK and the agent, nothing of ink, react, the other surfaces or another platform,
 * and its bin starts: `--help`, then a refusal (exit 2) that names the missing credential.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InstalledClosure, install_closure } from './install_closure.js';

const run = promisify(execFile);

/** The platforms, and the packages that make up each one's SDK (a pattern over package names). */
const PLATFORM_SDKS = {
  discord: ['discord\\.js', '@discordjs\\/.*'],
  telegram: ['grammy'],
  twitch: ['tmi\\.js'],
  webhook: [],
} as const;

/** One gateway package's pack test. */
export interface GatewayPackSpec {
  platform: keyof typeof PLATFORM_SDKS;
  /** The SDK package the closure must hold (none for the webhook). */
  sdk?: string;
  /** More package names that must not be installed, as patterns (the webhook forbids `ws`). */
  also_forbidden?: readonly string[];
  /** The bin's arguments (after the bin) that pass its option checks and stop at the credential. */
  refused_args: readonly string[];
  /** What the refusal's stderr must contain. */
  refusal: string;
}

/** Registers the suite for `@lich/gateway-<spec.platform>`; call it at the top of a test file. */
export function gateway_pack_suite(spec: GatewayPackSpec): void {
  const name = `gateway-${spec.platform}`;
  const others = Object.entries(PLATFORM_SDKS).filter(([platform]) => platform !== spec.platform);
  const forbidden = new RegExp(
    `^(${[
      'ink',
      'react',
      'react-dom',
      ...others.flatMap(([, sdk]) => sdk),
      ...(spec.also_forbidden ?? []),
      `@lich\\/(cli|tui|serve|acp|gateway-(${others.map(([platform]) => platform).join('|')}))`,
    ].join('|')})$`,
  );
  let closure: InstalledClosure | undefined;

  beforeAll(async () => {
    closure = await install_closure(`@lich/${name}`);
  }, 180_000);

  afterAll(async () => {
    await closure?.cleanup();
  });

  describe(`the installed @lich/${name}`, () => {
    it('is packed with its dist, README and bin only, no tests and no build info', () => {
      const own = closure?.packs[0];
      const allowed =
        /^package\/(dist\/[^/].*|bin\/lich-[a-z-]+\.js|README\.md|package\.json|LICENSE)$/;
      expect(own?.entries.filter((entry) => !allowed.test(entry))).toEqual([]);
      expect(own?.entries.filter((entry) => /\.test\.|tsbuildinfo/.test(entry))).toEqual([]);
      expect(own?.entries).toContain('package/dist/bin.js');
      // the command is a committed launcher, so pnpm links it before any build (no install warning)
      expect(own?.entries).toContain(`package/bin/lich-${name}.js`);
      expect(own?.manifest.bin).toEqual({ [`lich-${name}`]: `./bin/lich-${name}.js` });
    });

    it('holds its SDK, the gateway and the agent, and nothing of the TUI or another platform', () => {
      const installed = [...(closure?.installed ?? [])];
      expect(installed.filter((package_name) => forbidden.test(package_name))).toEqual([]);
      if (spec.sdk !== undefined) expect(installed).toContain(spec.sdk);
      expect(installed).toContain('@lich/gateway');
      expect(installed).toContain('@lich/agent');
    });

    it('starts its bin from the prefix: help, and a refusal without credentials', async () => {
      const prefix = closure?.prefix as string;
      const bin = join(prefix, 'node_modules', '@lich', name, 'bin', `lich-${name}.js`);
      expect((await readFile(bin, 'utf8')).startsWith('#!/usr/bin/env node\n')).toBe(true);
      const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: prefix, NO_COLOR: '1' };
      const help = await run(process.execPath, [bin, '--help'], { cwd: prefix, env });
      expect(help.stdout.startsWith(`lich-${name} — `)).toBe(true);
      const refused = await run(
        process.execPath,
        [bin, ...spec.refused_args, '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm'],
        { cwd: prefix, env },
      ).catch((error: { code: number; stderr: string }) => error);
      expect(refused).toMatchObject({ code: 2 });
      expect((refused as { stderr: string }).stderr).toContain(spec.refusal);
    });
  });
}
