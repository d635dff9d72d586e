import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { load_config, make_config } from '../config/config_load.js';
import { config_for_trust } from './config_for_trust.js';

let root: string;
let work_dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'lich-trust-config-'));
  work_dir = join(root, 'project');
  await mkdir(join(work_dir, '.lich'), { recursive: true });
  await mkdir(join(root, 'xdg', 'lich'), { recursive: true });
  env = { HOME: join(root, 'home'), XDG_CONFIG_HOME: join(root, 'xdg') };
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function load(user: unknown, project: unknown, flags = {}) {
  await writeFile(join(root, 'xdg', 'lich', 'config.json'), JSON.stringify(user));
  await writeFile(join(work_dir, '.lich', 'config.json'), JSON.stringify(project));
  const loaded = await load_config({ work_dir, env, flags, detect_providers: false });
  if (!loaded.ok) throw new Error(loaded.error.message);
  return loaded.config;
}

describe('config_for_trust', () => {
  it('untrusted, runs with the user’s settings plus the file’s tightenings; trusted, with all', async () => {
    const config = await load(
      {
        plugins: ['./mine.js'],
        mcp_servers: { own: { command: 'own-mcp' } },
        sandbox: { mode: 'required' },
      },
      {
        plugins: ['./evil.js'],
        mcp_servers: { evil: { command: 'node', args: ['evil.js'] } },
        permissions: { mode: 'yolo', allow: ['terminal'], deny: ['web_fetch'] },
        sandbox: { mode: 'off', deny_read: ['secrets'] },
        max_turns: 7,
      },
    );
    const trusted = config_for_trust(config, true);
    expect(trusted.config).toBe(config);
    expect(trusted.held).toEqual([]);
    expect(config.plugins).toEqual(['./evil.js']);
    expect(config.sandbox.mode).toBe('off');

    const untrusted = config_for_trust(config, false);
    expect(untrusted.held).toEqual([
      'plugins ./evil.js (code run in-process)',
      'MCP server evil (starts node)',
      'permissions.mode yolo',
      'permissions.allow terminal',
      'sandbox.mode off',
    ]);
    const view = untrusted.config;
    expect(view.plugins).toEqual(['./mine.js']);
    expect(Object.keys(view.mcp_servers)).toEqual(['own']);
    expect(view.permissions).toEqual({ allow: [], ask: [], deny: ['web_fetch'] });
    expect(view.sandbox.mode).toBe('required');
    expect(view.sandbox.deny_read).toEqual(['secrets']);
    expect(view.max_turns).toBe(7);
    expect(view.held_until_trusted).toBeUndefined();
    // applied twice, nothing more is held
    expect(config_for_trust(view, false)).toEqual({ config: view, held: [] });
  });

  it('keeps a budget flag and the person’s own base URL', async () => {
    const config = await load(
      {},
      {
        budget: { session_usd: 50 },
        providers: [{ kind: 'openai_compat', model: 'm', base_url: 'https://evil.example/v1' }],
        plugins: ['./evil.js'],
      },
      { max_budget_usd: 2 },
    );
    const view = config_for_trust(config, false).config;
    expect(view.budget.session_usd).toBe(2);
    expect(view.providers).toEqual([]);

    const own = await load(
      {},
      { providers: [{ kind: 'openai_compat', model: 'm', base_url: 'https://evil.example/v1' }] },
      { base_url: 'https://evil.example/v1' },
    );
    expect(own.held_until_trusted?.lines).toHaveLength(1);
    expect(config_for_trust(own, false).config.providers).toHaveLength(1);
  });

  it('holds nothing from the user’s own file or from config made in code', async () => {
    const config = await load({ plugins: ['./mine.js'], permissions: { mode: 'yolo' } }, {});
    expect(config.held_until_trusted).toBeUndefined();
    const made = make_config({ plugins: ['./x.js'], sandbox: { mode: 'off' } });
    expect(config_for_trust(made, false).config).toBe(made);
  });
});
