import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolExecutor, ToolRegistry } from '@lich/tools';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AcpClientPeer, ClientTerminal } from './acp_sdk.js';
import { client_tools } from './client_tools.js';

let work_dir: string;
let files: Map<string, string>;
let calls: string[];

function fake_peer(terminal?: Partial<ClientTerminal>): AcpClientPeer {
  return {
    update: async () => {},
    request_permission: async () => ({ outcome: { outcome: 'cancelled' } }),
    async read_text_file(params) {
      calls.push(`read ${params.path} ${params.line ?? ''} ${params.limit ?? ''}`);
      const text = files.get(params.path);
      if (text === undefined) throw new Error(`no file ${params.path}`);
      if (params.line == null) return text;
      const lines = text.split('\n');
      return lines
        .slice(params.line - 1, params.line - 1 + (params.limit ?? lines.length))
        .join('\n');
    },
    async write_text_file(params) {
      calls.push(`write ${params.path}`);
      files.set(params.path, params.content);
    },
    async create_terminal(params) {
      calls.push(`terminal ${params.command} ${(params.args ?? []).join(' ')}`);
      return {
        id: 'term-1',
        output: async () => ({
          output: 'hello\n',
          truncated: false,
          exit_code: 0,
          signal: null,
          exited: true,
        }),
        wait_for_exit: async () => ({ exit_code: 0, signal: null }),
        kill: async () => {},
        release: async () => {
          calls.push('release');
        },
        ...terminal,
      };
    },
  };
}

function executor(peer: AcpClientPeer, terminal = false) {
  const registry = new ToolRegistry();
  for (const tool of client_tools({
    peer,
    capabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
    client_terminal: terminal,
    on_terminal: async (session, call, id) => {
      calls.push(`shown ${session} ${call} ${id}`);
    },
  })) {
    registry.register(tool);
  }
  return { registry, executor: new ToolExecutor(registry, { work_dir }) };
}

beforeEach(async () => {
  work_dir = await realpath(await mkdtemp(join(tmpdir(), 'lich-acp-tools-')));
  files = new Map();
  calls = [];
});

afterEach(async () => {
  await rm(work_dir, { recursive: true, force: true });
});

describe('client_tools', () => {
  it('offers only what the client can do', () => {
    const peer = fake_peer();
    const names = (
      capabilities: Parameters<typeof client_tools>[0]['capabilities'],
      terminal = true,
    ) => client_tools({ peer, capabilities, client_terminal: terminal }).map((tool) => tool.name);
    expect(names({})).toEqual([]);
    expect(names({ fs: { readTextFile: true } })).toEqual(['read_file']);
    expect(names({ fs: { writeTextFile: true } })).toEqual(['write_file']);
    expect(names({ fs: { readTextFile: true, writeTextFile: true }, terminal: true })).toEqual([
      'read_file',
      'write_file',
      'edit_file',
      'terminal',
    ]);
    expect(names({ terminal: true }, false)).toEqual([]);
  });

  it('reads through the client, numbered like read_file, and says when the file goes on', async () => {
    const path = join(work_dir, 'a.txt');
    files.set(path, 'one\ntwo\nthree\nfour');
    const { executor: run } = executor(fake_peer());
    const result = await run.execute(
      'read_file',
      { path: 'a.txt', offset: 2, limit: 2 },
      { session_id: 's1' },
    );
    expect(result.ok).toBe(true);
    expect(result.output).toBe(
      '     2\ttwo\n     3\tthree\n(lines 2-3 shown; the file goes on: call read_file with offset=4 for more)',
    );
    expect(calls).toEqual([`read ${path} 2 3`]);
  });

  it('keeps the path guard: nothing outside the work dir reaches the client', async () => {
    const { executor: run } = executor(fake_peer());
    const outside = await run.execute('read_file', { path: '../secret' }, { session_id: 's1' });
    expect(outside.ok).toBe(false);
    const protected_dir = await run.execute(
      'write_file',
      { path: '.git/config', content: 'x' },
      { session_id: 's1' },
    );
    expect(protected_dir.ok).toBe(false);
    expect(calls).toEqual([]);
  });

  it('writes and edits through the client', async () => {
    const { executor: run } = executor(fake_peer());
    const written = await run.execute(
      'write_file',
      { path: 'b.txt', content: 'alpha\nbeta\n' },
      { session_id: 's1' },
    );
    expect(written.output).toBe('Created b.txt (11 bytes, 2 lines).');
    const edited = await run.execute(
      'edit_file',
      { path: 'b.txt', old_text: 'beta', new_text: 'gamma' },
      { session_id: 's1' },
    );
    expect(edited.ok).toBe(true);
    expect(edited.output).toContain('Edited b.txt: 1 replacement.');
    expect(edited.output).toContain('-beta\n+gamma');
    expect(files.get(join(work_dir, 'b.txt'))).toBe('alpha\ngamma\n');
    const missing = await run.execute(
      'edit_file',
      { path: 'b.txt', old_text: 'delta', new_text: 'x' },
      { session_id: 's1' },
    );
    expect(missing.ok).toBe(false);
    expect(missing.output).toContain('old_text was not found');
  });

  it('runs the builtin when the call belongs to no ACP session', async () => {
    await writeFile(join(work_dir, 'disk.txt'), 'on disk\n');
    const { executor: run } = executor(fake_peer());
    const result = await run.execute('read_file', { path: 'disk.txt' });
    expect(result.output).toBe('     1\ton disk');
    expect(calls).toEqual([]);
  });

  it('runs terminal in the client terminal, shows it on the tool call, releases it', async () => {
    const { executor: run } = executor(fake_peer(), true);
    const result = await run.execute(
      'terminal',
      { command: 'echo hello' },
      { session_id: 's1', tool_call_id: 'call_7' },
    );
    expect(result).toMatchObject({ ok: true, output: 'hello\n[exit code 0]' });
    expect(calls).toEqual([
      'terminal bash -c exec 2>&1; echo hello',
      'shown s1 call_7 term-1',
      'release',
    ]);
    const refused = await run.execute('terminal', { command: 'rm -rf /' }, { session_id: 's1' });
    expect(refused.ok).toBe(false);
    expect(calls).toHaveLength(3);
  });

  it('kills the client terminal on abort', async () => {
    const controller = new AbortController();
    const { executor: run } = executor(
      fake_peer({
        wait_for_exit: () => new Promise(() => {}),
        output: async () => ({
          output: '',
          truncated: false,
          exit_code: null,
          signal: 'SIGKILL',
          exited: true,
        }),
        kill: async () => {
          calls.push('kill');
        },
      }),
      true,
    );
    const running = run.execute(
      'terminal',
      { command: 'sleep 100' },
      { session_id: 's1', signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 20);
    const result = await running;
    expect(result.ok).toBe(false);
    expect(calls).toContain('kill');
    expect(calls.at(-1)).toBe('release');
  });
});
