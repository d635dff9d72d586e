/**
 * What the `lich` process benchmarks share: the built bin, a sandbox folder with the fake
 * server's environment, a process runner, and the scripted task (read a file per turn).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FakeServer, ScriptStep } from '@lich/testkit';

/** The `lich` executable measured: `$LICH_BENCH_BIN`, else this workspace's built bin. */
export const BIN =
  process.env.LICH_BENCH_BIN ??
  fileURLToPath(new URL('../../apps/cli/dist/bin.cjs', import.meta.url));

/**
 * One turn's reading of an OpenAI stream in a bare client, as script text: `chunks` yields text,
 * and after it `content` and `calls` hold the turn's answer and tool calls; then each call's file
 * is read into `messages`, or the answer is written and the loop left.
 */
export function bare_turn(chunks: string): string {
  return `
  let buffer = '';
  let content = '';
  const calls = [];
  for await (const chunk of ${chunks}) {
    buffer += chunk;
    let end;
    while ((end = buffer.indexOf('\\n')) >= 0) {
      const line = buffer.slice(0, end).trim();
      buffer = buffer.slice(end + 1);
      if (!line.startsWith('data:')) continue;
      const data = line.slice(5).trim();
      if (data === '[DONE]') continue;
      const delta = JSON.parse(data).choices?.[0]?.delta ?? {};
      if (delta.content) content += delta.content;
      for (const call of delta.tool_calls ?? []) {
        const slot = (calls[call.index] ??= { id: '', name: '', arguments: '' });
        if (call.id) slot.id = call.id;
        if (call.function?.name) slot.name += call.function.name;
        if (call.function?.arguments) slot.arguments += call.function.arguments;
      }
    }
  }
  if (calls.length === 0) {
    process.stdout.write(content + '\\n');
    break;
  }
  messages.push({ role: 'assistant', content, tool_calls: calls.map((call) => ({
    id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })) });
  for (const call of calls) {
    const text = await readFile(JSON.parse(call.arguments).path, 'utf8');
    messages.push({ role: 'tool', tool_call_id: call.id, content: text });
  }`;
}

/** The bare client: the same requests as Lich, by hand, with fetch and a minimal SSE reader. */
export const BARE_SCRIPT = `
import { readFile } from 'node:fs/promises';
const base = process.env.BARE_BASE_URL;
const messages = [
  { role: 'system', content: 'You are a bare client.' },
  { role: 'user', content: process.argv[2] ?? 'read notes.txt' },
];
const tools = [{ type: 'function', function: { name: 'read_file', description: 'Reads a file',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } } }];
async function* text_of(body) {
  const decoder = new TextDecoder();
  for await (const chunk of body) yield decoder.decode(chunk, { stream: true });
}
for (;;) {
  const response = await fetch(base + '/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'fake', messages, tools, stream: true }),
  });
${bare_turn('text_of(response.body)')}
}
`;

/**
 * Reports the peak RSS (KB) of the process it is imported into, at exit, to LICH_RSS_FILE. On
 * Linux it reads VmHWM, the peak of this process's own memory: `resourceUsage().maxRSS` keeps the
 * high-water mark across exec, so a child spawned by a large parent (this bench, after the
 * sessions benchmark) would report the parent's size.
 */
export const RSS_REPORTER = `
import { readFileSync, writeFileSync } from 'node:fs';
process.on('exit', () => {
  let kb = process.resourceUsage().maxRSS;
  try {
    const match = /^VmHWM:\\s+(\\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (match) kb = Number(match[1]);
  } catch {}
  writeFileSync(process.env.LICH_RSS_FILE, String(kb));
});
`;

export interface Sandbox {
  dir: string;
  bare: string;
  rss_reporter: string;
  env: Record<string, string>;
}

export function run_process(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    child.stdout.resume();
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr.slice(-500)}`));
    });
  });
}

/** A task of `turns` model calls: `turns - 1` read_file calls, then the answer. */
export function script(turns: number): ScriptStep[] {
  const steps: ScriptStep[] = [];
  for (let turn = 1; turn < turns; turn++) {
    steps.push({
      tool_calls: [{ id: `call_${turn}`, name: 'read_file', arguments: { path: 'notes.txt' } }],
    });
  }
  steps.push({ text: 'The notes say hello.' });
  return steps;
}

export async function make_sandbox(server: FakeServer): Promise<Sandbox> {
  const dir = await mkdtemp(join(tmpdir(), 'lich-bench-cli-'));
  await writeFile(join(dir, 'notes.txt'), 'hello from the notes\n');
  const bare = join(dir, 'bare.mjs');
  await writeFile(bare, BARE_SCRIPT);
  const rss_reporter = join(dir, 'rss.mjs');
  await writeFile(rss_reporter, RSS_REPORTER);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, 'xdg'),
    NO_COLOR: '1',
    OLLAMA_HOST: '127.0.0.1:9',
    LICH_PROVIDER: 'openai_compat',
    LICH_MODEL: 'fake',
    LICH_BASE_URL: server.base_url,
    BARE_BASE_URL: server.base_url,
  };
  return { dir, bare, rss_reporter, env };
}

/**
 * `bin.cjs` runs the unbundled code, about twice as slow to start, when a package was rebuilt
 * after the bundle; in a tree where others rebuild packages that is often. Measure what
 * `pnpm build` ships instead: remake stale bundles first (only for the default BIN), by the
 * loader's own rule (`bundle.mjs --if-stale`).
 */
export function ensure_fresh_bundle(): void {
  if (process.env.LICH_BENCH_BIN !== undefined) return;
  const cli_dir = fileURLToPath(new URL('../../apps/cli/', import.meta.url));
  execFileSync(process.execPath, [join(cli_dir, 'scripts', 'bundle.mjs'), '--if-stale'], {
    stdio: 'inherit',
  });
}
