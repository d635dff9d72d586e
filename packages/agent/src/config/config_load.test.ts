import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { set_config_value } from './config_file.js';
import { type LoadConfigResult, load_config, make_config } from './config_load.js';

let root: string;
let work_dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'lich-config-'));
  work_dir = join(root, 'project');
  await mkdir(join(work_dir, '.lich'), { recursive: true });
  env = { HOME: join(root, 'home'), XDG_CONFIG_HOME: join(root, 'xdg') };
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function write_json(path: string, value: unknown): Promise<void> {
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, typeof value === 'string' ? value : JSON.stringify(value));
}

function ok(result: LoadConfigResult) {
  if (!result.ok) throw new Error(`expected ok, got ${result.error.message}`);
  return result;
}

const user_file = () => join(root, 'xdg', 'lich', 'config.json');
const project_file = () => join(work_dir, '.lich', 'config.json');

describe('load_config', () => {
  it('fills defaults, derives session_dir from work_dir and freezes the result', async () => {
    const loaded = ok(await load_config({ work_dir, env, probe_ollama: false }));
    expect(loaded.config.work_dir).toBe(work_dir);
    expect(loaded.config.session_dir).toBe(join(work_dir, '.lich', 'sessions'));
    expect(loaded.config.max_turns).toBe(50);
    expect(loaded.config.providers).toEqual([]);
    expect(loaded.config.tools_enabled).toBeUndefined();
    expect(Object.isFrozen(loaded.config)).toBe(true);
    expect(Object.isFrozen(loaded.config.compression)).toBe(true);
    expect(loaded.sources.max_turns).toEqual({ layer: 'default', detail: 'default' });
    expect(loaded.sources.session_dir?.layer).toBe('derived');
  });

  it('layers user file, project file, environment and flags, later winning', async () => {
    await write_json(user_file(), {
      max_turns: 10,
      context_window: 64_000,
      system_prompt: 'from user',
      mcp_servers: { a: { command: 'a-server' } },
      compression: { threshold: 0.5 },
    });
    await write_json(project_file(), {
      max_turns: 20,
      mcp_servers: { b: { command: 'b-server', enabled: false } },
      compression: { keep_recent: 3 },
      session_dir: 'transcripts',
    });
    const loaded = ok(
      await load_config({
        work_dir,
        env: { ...env, LICH_CONTEXT_WINDOW: '32000' },
        flags: { max_turns: 7 },
        probe_ollama: false,
      }),
    );
    const config = loaded.config;
    expect(config.max_turns).toBe(7);
    expect(config.context_window).toBe(32_000);
    expect(config.system_prompt).toBe('from user');
    expect(Object.keys(config.mcp_servers)).toEqual(['a', 'b']);
    expect(config.compression).toEqual({ enabled: true, threshold: 0.5, keep_recent: 3 });
    expect(config.session_dir).toBe(join(work_dir, 'transcripts'));
    expect(loaded.files).toEqual([user_file(), project_file()]);
    expect(loaded.sources.max_turns?.detail).toBe('flag --max-turns');
    expect(loaded.sources.context_window?.detail).toBe('env LICH_CONTEXT_WINDOW');
    expect(loaded.sources.system_prompt?.detail).toBe(user_file());
    expect(loaded.sources.session_dir?.detail).toBe(project_file());
  });

  it('names the file, the key path and what was expected for a wrong type', async () => {
    await write_json(project_file(), { max_turns: 'many', providers: [{ kind: 'ollama' }] });
    const result = await load_config({ work_dir, env, probe_ollama: false });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.message).toContain(project_file());
    expect(result.error.message).toContain('max_turns: expected number, received string');
    expect(result.error.message).toContain('providers.0.model');
  });

  it('names the line of a JSON syntax error', async () => {
    await write_json(user_file(), '{\n  "max_turns": 3,\n  oops\n}');
    const result = await load_config({ work_dir, env, probe_ollama: false });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toMatch(/config\.json: not valid JSON at line 3/);
  });

  it('warns about unknown keys with the nearest known key', async () => {
    await write_json(project_file(), {
      max_turn: 3,
      providers: [{ kind: 'ollama', model: 'm', modle: 'x' }],
      zzzzzz: true,
    });
    const loaded = ok(await load_config({ work_dir, env, probe_ollama: false }));
    expect(loaded.warnings).toEqual([
      `${project_file()}: unknown key 'max_turn' (did you mean 'max_turns'?)`,
      `${project_file()}: unknown key 'providers.0.modle' (did you mean 'model'?)`,
      `${project_file()}: unknown key 'zzzzzz' (ignored)`,
    ]);
    expect(loaded.config.max_turns).toBe(50);
  });

  it('fails clearly when the work dir does not exist or --config is missing', async () => {
    const missing = await load_config({ work_dir: join(root, 'nope'), env });
    expect(missing.ok).toBe(false);
    if (!missing.ok)
      expect(missing.error.message).toBe(`work dir ${join(root, 'nope')} does not exist`);
    const no_file = await load_config({ work_dir, env, config_path: join(root, 'x.json') });
    expect(no_file.ok).toBe(false);
    if (!no_file.ok) expect(no_file.error.message).toContain('x.json: no such file');
  });

  it('uses --config instead of the project file', async () => {
    await write_json(project_file(), { max_turns: 20 });
    await write_json(join(root, 'other.json'), { max_turns: 30 });
    const loaded = ok(
      await load_config({
        work_dir,
        env,
        config_path: join(root, 'other.json'),
        probe_ollama: false,
      }),
    );
    expect(loaded.config.max_turns).toBe(30);
  });

  it('rejects a bad environment value naming the variable', async () => {
    const result = await load_config({ work_dir, env: { ...env, LICH_MAX_TURNS: 'lots' } });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toMatch(/^env LICH_MAX_TURNS: /);
  });
});

describe('providers from the environment', () => {
  const servers: Server[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => new Promise((done) => server.close(done))));
  });

  it('builds the chain from OPENAI_API_KEY and ANTHROPIC_API_KEY with their base URLs', async () => {
    const loaded = ok(
      await load_config({
        work_dir,
        env: {
          ...env,
          OPENAI_API_KEY: 'sk-1',
          OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
          ANTHROPIC_API_KEY: 'sk-2',
        },
      }),
    );
    expect(loaded.config.providers).toEqual([
      {
        kind: 'openai_compat',
        model: 'gpt-4o-mini',
        api_key_env: 'OPENAI_API_KEY',
        base_url: 'http://127.0.0.1:9/v1',
      },
      { kind: 'anthropic', model: 'claude-sonnet-4-5', api_key_env: 'ANTHROPIC_API_KEY' },
    ]);
    expect(loaded.sources.providers?.detail).toBe(
      'key: env OPENAI_API_KEY, base_url: env OPENAI_BASE_URL, key: env ANTHROPIC_API_KEY',
    );
  });

  it('lets LICH_PROVIDER, LICH_MODEL and LICH_BASE_URL override, and flags override those', async () => {
    await write_json(project_file(), {
      providers: [
        { kind: 'anthropic', model: 'claude-x', api_key_env: 'MY_KEY' },
        { kind: 'ollama', model: 'qwen' },
      ],
    });
    const by_env = ok(
      await load_config({
        work_dir,
        env: {
          ...env,
          LICH_PROVIDER: 'openai',
          LICH_MODEL: 'm1',
          LICH_BASE_URL: 'http://x.test/v1',
        },
      }),
    );
    expect(by_env.config.providers).toEqual([
      {
        kind: 'openai_compat',
        model: 'm1',
        api_key_env: 'OPENAI_API_KEY',
        base_url: 'http://x.test/v1',
      },
    ]);
    expect(by_env.sources.providers?.detail).toBe(
      'kind: env LICH_PROVIDER, model: env LICH_MODEL, base_url: env LICH_BASE_URL',
    );
    const by_flag = ok(
      await load_config({ work_dir, env: { ...env, LICH_MODEL: 'm2' }, flags: { model: 'm3' } }),
    );
    expect(by_flag.config.providers.map((entry) => entry.model)).toEqual(['m3', 'qwen']);
    expect(by_flag.config.providers[0]?.api_key_env).toBe('MY_KEY');
    // the rest of the entry stays what the project file says (C37)
    expect(by_flag.sources.providers?.detail).toMatch(/config\.json, model: flag --model$/);
    const same_kind = ok(await load_config({ work_dir, env, flags: { provider: 'ollama' } }));
    expect(same_kind.config.providers).toEqual([{ kind: 'ollama', model: 'qwen' }]);
  });

  it('treats LICH_BASE_URL alone as an OpenAI-compatible server', async () => {
    const loaded = ok(
      await load_config({ work_dir, env: { ...env, LICH_BASE_URL: 'http://127.0.0.1:1/v1' } }),
    );
    expect(loaded.config.providers).toEqual([
      { kind: 'openai_compat', model: 'gpt-4o-mini', base_url: 'http://127.0.0.1:1/v1' },
    ]);
  });

  it('takes the base URL of a chosen kind from its variable and keeps LICH_MODEL under --provider', async () => {
    const loaded = ok(
      await load_config({
        work_dir,
        env: { ...env, OPENAI_BASE_URL: 'http://proxy.test/v1', LICH_MODEL: 'm9' },
        flags: { provider: 'openai_compat' },
      }),
    );
    expect(loaded.config.providers).toEqual([
      {
        kind: 'openai_compat',
        model: 'm9',
        api_key_env: 'OPENAI_API_KEY',
        base_url: 'http://proxy.test/v1',
      },
    ]);
    expect(loaded.sources.providers?.detail).toBe('kind: flag --provider, model: env LICH_MODEL');
    const other = ok(
      await load_config({
        work_dir,
        env: { ...env, LICH_PROVIDER: 'ollama', LICH_MODEL: 'qwen' },
        flags: { provider: 'anthropic' },
      }),
    );
    expect(other.config.providers[0]).toMatchObject({
      kind: 'anthropic',
      model: 'claude-sonnet-4-5',
    });
  });

  it('reads --model kind/model, and makes a provider of --base-url with an empty chain', async () => {
    const split = ok(
      await load_config({
        work_dir,
        env,
        flags: { model: 'ollama/qwen2.5-coder' },
        probe_ollama: false,
      }),
    );
    expect(split.config.providers).toEqual([{ kind: 'ollama', model: 'qwen2.5-coder' }]);
    const whole = ok(
      await load_config({
        work_dir,
        env,
        flags: { model: 'anthropic/claude-3.5', base_url: 'http://router.test/v1' },
      }),
    );
    expect(whole.config.providers).toEqual([
      { kind: 'openai_compat', model: 'anthropic/claude-3.5', base_url: 'http://router.test/v1' },
    ]);
  });

  it('asks for a model when an unknown kind has no default', async () => {
    const result = await load_config({ work_dir, env: { ...env, LICH_PROVIDER: 'mistral' } });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toContain("kind 'mistral' has no default model");
  });

  it('finds a local Ollama by probing OLLAMA_HOST, and nothing at a closed port', async () => {
    const server = createServer((request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          models:
            request.url === '/api/tags' ? [{ name: 'qwen3:4b' }, { name: 'llama3.2:3b' }] : [],
        }),
      );
    });
    servers.push(server);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const port = (server.address() as AddressInfo).port;
    const loaded = ok(
      await load_config({ work_dir, env: { ...env, OLLAMA_HOST: `127.0.0.1:${port}` } }),
    );
    expect(loaded.config.providers).toEqual([
      { kind: 'ollama', model: 'llama3.2:3b', base_url: `http://127.0.0.1:${port}` },
    ]);
    server.close();
    const started = Date.now();
    const none = ok(
      await load_config({ work_dir, env: { ...env, OLLAMA_HOST: `127.0.0.1:${port}` } }),
    );
    expect(none.config.providers).toEqual([]);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('make_config', () => {
  it('builds a frozen config from code, throwing on a wrong value', () => {
    const config = make_config({ work_dir: '/tmp/x', max_turns: 3 });
    expect(config.session_dir).toBe('/tmp/x/.lich/sessions');
    expect(config.max_turns).toBe(3);
    expect(() => make_config({ max_turns: -1 })).toThrow(/make_config: max_turns/);
  });

  it('fills the sandbox keys and joins the older top-level env_passthrough into its own', () => {
    const config = make_config({
      work_dir: '/tmp/x',
      env_passthrough: ['OLD_NAME'],
      sandbox: { env_passthrough: ['DATABASE_URL'], allow_unix_sockets: ['/run/docker.sock'] },
    });
    expect(config.sandbox).toEqual({
      mode: 'auto',
      network: false,
      writable: [],
      env_passthrough: ['DATABASE_URL', 'OLD_NAME'],
      allow_unix_sockets: ['/run/docker.sock'],
      deny_read: [],
      allow_read: [],
      max_processes: 1024,
    });
  });
});

describe('set_config_value', () => {
  it('writes a valid value, refuses a wrong type or an unknown key and leaves the file alone', async () => {
    const path = project_file();
    expect(await set_config_value(path, 'max_turns', 12)).toEqual({
      ok: true,
      changed: true,
      warnings: [],
    });
    expect(await set_config_value(path, 'compression.threshold', 0.6)).toMatchObject({ ok: true });
    const wrong = await set_config_value(path, 'max_turns', 'x');
    expect(wrong.ok).toBe(false);
    if (!wrong.ok) expect(wrong.error.message).toContain('max_turns: expected number');
    const unknown = await set_config_value(path, 'max_turn', 3);
    expect(unknown.ok).toBe(false);
    if (!unknown.ok) expect(unknown.error.message).toContain("did you mean 'max_turns'");
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({
      max_turns: 12,
      compression: { threshold: 0.6 },
    });
    expect(await set_config_value(path, 'max_turns', undefined)).toMatchObject({ ok: true });
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ compression: { threshold: 0.6 } });
  });

  it('unsets nothing for a key the file lacks, refuses an unknown one, and writes no file', async () => {
    const path = join(root, 'elsewhere', 'config.json');
    expect(await set_config_value(path, 'max_turns', undefined)).toEqual({
      ok: true,
      changed: false,
      warnings: [],
    });
    const unknown = await set_config_value(path, 'nosuch', undefined);
    expect(unknown.ok).toBe(false);
    await expect(readFile(path, 'utf8')).rejects.toThrow(/ENOENT/);
    await write_json(path, '{ "max_turn": 3, // typo\n}');
    expect(await set_config_value(path, 'max_turn', undefined)).toMatchObject({
      ok: true,
      changed: true,
      warnings: [`${path} held comments; they were not kept`],
    });
  });
});

describe('config files', () => {
  it('reads JSONC with a BOM, and refuses deep nesting and odd base URLs naming the file', async () => {
    await write_json(project_file(), '\uFEFF{\n  // turns\n  "max_turns": 7,\n}\n');
    const loaded = ok(await load_config({ work_dir, env, probe_ollama: false }));
    expect(loaded.config.max_turns).toBe(7);
    await write_json(project_file(), `{"plugins": ${'['.repeat(5000)}${']'.repeat(5000)}}`);
    const deep = await load_config({ work_dir, env, probe_ollama: false });
    expect(deep.ok).toBe(false);
    if (!deep.ok) expect(deep.error.message).toMatch(/config\.json: nested 5001 levels deep/);
    await write_json(project_file(), {
      providers: [{ kind: 'openai_compat', model: 'm', base_url: 'file:///etc/passwd' }],
    });
    const file_url = await load_config({ work_dir, env, probe_ollama: false });
    expect(file_url.ok).toBe(false);
    if (!file_url.ok) {
      expect(file_url.error.message).toContain(
        `${project_file()}: providers.0.base_url: expected an http:// or https:// URL, got a file: URL`,
      );
    }
  });
});
