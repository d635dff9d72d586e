/**
 * The READMEs are true: every example of the CLI README's Quick start and Commands sections is
 * run here against the testkit fakes, each row of the Commands table is checked against the
 * command's --help, and `lich --help` lists the commands and options the READMEs list.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { createServer, request as http_request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  type FakeServer,
  start_anthropic_server,
  start_gemini_server,
  start_ollama_server,
  start_openai_server,
} from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COMMANDS } from '../src/help.js';
import { make_sandbox, request_body, run_lich, type Sandbox } from './helpers.js';

const exec_file = promisify(execFile);

const CLI_README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const ROOT_README = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

/** The text of `## heading` up to the next `## `. */
function section(text: string, heading: string): string {
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start === -1) throw new Error(`no section '${heading}'`);
  const end = text.indexOf('\n## ', start + 4);
  return text.slice(start, end === -1 ? undefined : end);
}

/** The fenced `sh` blocks of `text`. */
function shell_blocks(text: string): string[] {
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] as string);
}

/** A shell line as words (quotes removed) and its trailing comment. */
function shell_words(line: string): { words: string[]; comment: string } {
  const words: string[] = [];
  let current = '';
  let quote: string | undefined;
  let started = false;
  for (let index = 0; index < line.length; index++) {
    const char = line[index] as string;
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
      else current += char;
      continue;
    }
    if (char === '"' || char === "'") {
      quote = char;
      started = true;
      continue;
    }
    if (char === '#' && !started) {
      return { words, comment: line.slice(index + 1).trim() };
    }
    if (/\s/.test(char)) {
      if (started) words.push(current);
      current = '';
      started = false;
      continue;
    }
    current += char;
    started = true;
  }
  if (started) words.push(current);
  return { words, comment: '' };
}

/** The rows of the markdown tables of `text`, as cells. */
function table_rows(text: string): string[][] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| ---'))
    .map((line) =>
      line
        .slice(2, -2)
        .split(/(?<!\\) \| /)
        .map((cell) => cell.trim()),
    );
}

/** The `lich …` forms of a commands-table cell, e.g. `lich sessions show <id>`. */
function lich_forms(cell: string): string[] {
  return [...cell.matchAll(/`(lich [^`]*)`/g)].map((match) =>
    (match[1] as string).replace(/\\\|/g, '|'),
  );
}

/** The command a `lich …` form runs: `run` for a task. */
function command_of(form: string): string {
  const word = form.split(/\s+/)[1] as string;
  return word.startsWith('"') || word.startsWith('-') ? 'run' : word;
}

/** The long options in a text: `--model`, `--output-format`. */
function long_options(text: string): Set<string> {
  return new Set([...text.matchAll(/(?<![\w-])--[a-z][a-z-]*/g)].map((match) => match[0]));
}

let sandbox: Sandbox;

beforeEach(async () => {
  sandbox = await make_sandbox({ 'README.md': '# demo\n', 'src/main.ts': 'export {};\n' });
});

afterEach(async () => {
  await sandbox.cleanup();
});

const lich = (args: string[], env: Record<string, string>, input?: string) =>
  run_lich(args, { cwd: sandbox.work_dir, env, ...(input === undefined ? {} : { input }) });

/** A server in front of a fake Ollama that also lists models at /api/tags. */
async function ollama_with_tags(
  fake: FakeServer,
  models: string[],
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    if (request.url === '/api/tags') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ models: models.map((name) => ({ name, model: name })) }));
      return;
    }
    const target = new URL(request.url ?? '/', fake.url);
    const forward = http_request(
      target,
      { method: request.method, headers: request.headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 500, answer.headers);
        answer.pipe(response);
      },
    );
    request.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('the Quick start of the CLI README, run', () => {
  const quick = section(CLI_README, 'Quick start');

  it('runs every lich line of its code blocks against a fake of the provider it names', async () => {
    const blocks = shell_blocks(quick);
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    let ran = 0;
    for (const block of blocks) {
      const lines = block.split('\n').filter((line) => line.trim() !== '');
      const exports: Record<string, string> = {};
      for (const line of lines) {
        const match = /^export ([A-Z_]+)=(\S+)$/.exec(line.trim());
        if (match) exports[match[1] as string] = match[2] as string;
      }
      const uses_ollama = lines.some((line) => line.startsWith('ollama '));
      const fake = exports.ANTHROPIC_API_KEY
        ? await start_anthropic_server()
        : exports.GEMINI_API_KEY
          ? await start_gemini_server()
          : uses_ollama
            ? await start_ollama_server()
            : await start_openai_server();
      const front = uses_ollama
        ? await ollama_with_tags(fake, ['llama3.2:latest', 'qwen3:8b'])
        : undefined;
      try {
        const env: Record<string, string> = { ...sandbox.env, ...exports };
        if (exports.OPENAI_API_KEY) env.OPENAI_BASE_URL = fake.base_url;
        if (exports.ANTHROPIC_API_KEY) env.ANTHROPIC_BASE_URL = fake.base_url;
        if (exports.GEMINI_API_KEY) env.GEMINI_BASE_URL = fake.base_url;
        if (front) env.OLLAMA_HOST = front.url;
        for (const line of lines.filter((text) => text.startsWith('lich '))) {
          const { words, comment } = shell_words(line);
          const args = words
            .slice(1)
            .map((word) =>
              /^https?:\/\/127\.0\.0\.1:8000\/v1$/.test(word) ? fake.base_url : word,
            );
          fake.enqueue({ text: `answer to ${line}` });
          const before = fake.requests.length;
          const result = await lich(args, env);
          expect(result.code, `${line}\n${result.stderr}`).toBe(0);
          expect(result.stdout).toBe(`answer to ${line}\n`);
          // Gemini names the model in the path, the others in the body
          const path_model = /\/models\/([^/:]+):/.exec(fake.requests[before]?.path ?? '')?.[1];
          const body = request_body<{ model?: string }>(fake, before);
          const model = body.model ?? path_model ?? '';
          const named =
            /(?:model|picks) ([\w.:-]+)/.exec(comment)?.[1] ?? args[args.indexOf('--model') + 1];
          if (named !== undefined && args.includes('--model')) {
            expect(model, line).toBe(args[args.indexOf('--model') + 1]);
          } else if (named !== undefined) {
            expect(model.replace(/:latest$/, ''), line).toBe(named);
          }
          ran++;
        }
      } finally {
        await front?.close();
        await fake.close();
      }
    }
    expect(ran).toBeGreaterThanOrEqual(5);
  });

  it('LICH_BASE_URL and LICH_MODEL instead of the flags, as the compatible-server block says', async () => {
    expect(quick).toContain('export LICH_BASE_URL=… LICH_MODEL=…');
    const fake = await start_openai_server();
    try {
      fake.enqueue({ text: 'ok' });
      const env = { ...sandbox.env, LICH_BASE_URL: fake.base_url, LICH_MODEL: 'qwen2.5-coder' };
      const result = await lich(['add a --verbose flag'], env);
      expect(result).toMatchObject({ code: 0, stdout: 'ok\n' });
      expect(request_body<{ model: string }>(fake, 0).model).toBe('qwen2.5-coder');
    } finally {
      await fake.close();
    }
  });

  it('with nothing set, says what to set in two lines and exits 2', async () => {
    expect(quick).toContain(
      'With nothing set, `lich` says what to set, in two lines, and exits with 2.',
    );
    const result = await lich(['summarise the README'], sandbox.env);
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(2);
  });

  it('the answer alone on stdout (it pipes), and piped stdin added as context', async () => {
    expect(quick).toContain('`lich "write a commit message" |\ngit commit -F -`');
    expect(quick).toContain('`git diff | lich "review this"`');
    const fake = await start_openai_server();
    try {
      const env = { ...sandbox.env, OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fake.base_url };
      fake.enqueue({ text: 'fix: the parser' }, { text: 'looks fine' });
      const message = await lich(['write a commit message'], env);
      expect(message.stdout).toBe('fix: the parser\n');
      const review = await lich(['review this'], env, '--- a/x\n+++ b/x\n');
      expect(review.code).toBe(0);
      const prompt = request_body<{ messages: { content: string }[] }>(fake, 1).messages.at(-1);
      expect(prompt?.content).toContain('<stdin>\n--- a/x\n+++ b/x\n</stdin>');
    } finally {
      await fake.close();
    }
  });
});

describe('the Commands section of the CLI README', () => {
  const commands = section(CLI_README, 'Commands');

  it('its grammar examples do what it says', async () => {
    const fake = await start_openai_server();
    try {
      const env = { ...sandbox.env, OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fake.base_url };
      for (const example of [
        '`lich -C ../app sessions list`',
        '`lich "fix the tests"`',
        '`lich fix the tests`',
        '`lich p`',
        '(`sesions`, `chats`)',
        '`lich run init`',
      ]) {
        expect(commands).toContain(example);
      }
      const listed = await lich(['-C', sandbox.work_dir, 'sessions', 'list'], env);
      expect(listed.code).toBe(0);
      for (const typo of ['sesions', 'chats']) {
        const refused = await lich([typo], env);
        expect(refused.code).toBe(2);
        expect(refused.stderr).toMatch(/unknown command/);
      }
      for (const task of [['fix the tests'], ['fix', 'the', 'tests'], ['p'], ['run', 'init']]) {
        fake.enqueue({ text: 'done' });
        const result = await lich(task, env);
        expect(result, task.join(' ')).toMatchObject({ code: 0, stdout: 'done\n' });
      }
      expect(fake.requests).toHaveLength(4);
    } finally {
      await fake.close();
    }
  });

  it('each row of its commands table matches that command --help', async () => {
    const rows = table_rows(commands).filter((row) => lich_forms(row[0] ?? '').length > 0);
    expect(rows.length).toBeGreaterThan(15);
    const helps = new Map<string, string>();
    for (const row of rows) {
      for (const form of lich_forms(row[0] as string)) {
        const command = command_of(form);
        let help = helps.get(command);
        if (help === undefined) {
          const result = await lich([command, '--help'], sandbox.env);
          expect(result.code, form).toBe(0);
          help = result.stdout;
          helps.set(command, help);
        }
        // the subcommands the form names (`sessions show`, `mcp enable|disable|remove`)
        const rest = form.split(/\s+/).slice(2).join(' ');
        const subcommands =
          command === 'run' || command === 'help'
            ? []
            : (rest.split(/\s+/)[0] ?? '').split('|').filter((word) => /^[a-z]+$/.test(word));
        for (const word of subcommands) expect(help, form).toMatch(new RegExp(`\\b${word}\\b`));
        for (const option of long_options(`${row[0]} ${row[1] ?? ''}`)) {
          if (option === '--help' || option === '--version') continue;
          expect(help, `${form}: ${option}`).toContain(option);
        }
      }
    }
  });
});

describe('lich --help and the READMEs list the same commands and options', () => {
  it('the same commands', async () => {
    const help = (await lich(['--help'], sandbox.env)).stdout;
    const listed = help.slice(help.indexOf('Commands:'), help.indexOf('Options:'));
    const help_commands = new Set(
      [...listed.matchAll(/^ {2}([a-z]+)\b/gm)].map((match) => match[1] as string),
    );
    help_commands.add('run');
    for (const readme of [CLI_README, ROOT_README]) {
      const rows = table_rows(section(readme, 'Commands'));
      const readme_commands = new Set(
        rows.flatMap((row) => lich_forms(row[0] ?? '').map(command_of)),
      );
      expect([...readme_commands].sort()).toEqual([...help_commands].sort());
    }
  });

  it('the same options', async () => {
    const help = (await lich(['--help'], sandbox.env)).stdout;
    const help_options = long_options(help.slice(help.indexOf('Options:')));
    help_options.delete('--approval-mode'); // named inside the description of --yolo as well
    help_options.add('--approval-mode');
    const rows = table_rows(section(CLI_README, 'Commands')).filter((row) =>
      /^`-/.test(row[0] ?? ''),
    );
    const readme_options = long_options(rows.map((row) => row[0]).join(' '));
    // --help and --version stand in the commands table's last row
    for (const option of ['--help', '--version']) readme_options.add(option);
    expect([...readme_options].sort()).toEqual([...help_options].sort());
  });
});

describe('the root README is whole (C42, #30)', () => {
  const root_dir = new URL('../../../', import.meta.url);

  it('its packages table names every package of the workspace', () => {
    const names: string[] = [];
    for (const group of ['packages', 'apps', 'tooling']) {
      for (const entry of readdirSync(new URL(`${group}/`, root_dir))) {
        const manifest = new URL(`${group}/${entry}/package.json`, root_dir);
        if (existsSync(manifest)) names.push(JSON.parse(readFileSync(manifest, 'utf8')).name);
      }
    }
    names.push(JSON.parse(readFileSync(new URL('bench/package.json', root_dir), 'utf8')).name);
    const rows = table_rows(section(ROOT_README, 'Packages')).filter((row) => row[0] !== 'package');
    const listed = rows.map((row) => /`(@lich\/[a-z-]+)`/.exec(row[0] ?? '')?.[1]);
    expect(listed.sort()).toEqual(names.sort());
    // the CLI's row names every command
    const cli_row = rows.find((row) => row[0]?.includes('`@lich/cli`'))?.[1] ?? '';
    for (const command of COMMANDS) expect(cli_row).toContain(`\`${command}\``);
  });

  it('has one config table, the same as the CLI README, with every key of the schema', () => {
    const config_table = (text: string) =>
      table_rows(section(text, 'Configuration')).filter(
        (row) => row.length === 4 && row[0] !== 'key',
      );
    const root_rows = config_table(ROOT_README);
    expect(root_rows).toEqual(config_table(CLI_README));
    const schema = JSON.parse(
      readFileSync(new URL('packages/agent/config.schema.json', root_dir), 'utf8'),
    ) as { properties: Record<string, unknown> };
    const keys = new Set(root_rows.map((row) => /^`([a-z_]+)/.exec(row[0] ?? '')?.[1]));
    for (const key of Object.keys(schema.properties)) {
      if (key !== '$schema') expect(keys, key).toContain(key);
    }
  });

  it('says how to get a lich command from a clone before its examples use one', async () => {
    const first_example = ROOT_README.indexOf('\nlich ');
    const link = ROOT_README.indexOf('ln -s "$PWD/apps/cli/dist/bin.cjs"');
    expect(link).toBeGreaterThan(-1);
    expect(link).toBeLessThan(first_example);
    // and the link works: the built bin runs by itself
    const bin = fileURLToPath(new URL('apps/cli/dist/bin.cjs', root_dir));
    const linked = join(sandbox.home, 'bin', 'lich');
    mkdirSync(dirname(linked), { recursive: true });
    symlinkSync(bin, linked);
    const { stdout } = await exec_file(linked, ['--version'], { cwd: sandbox.work_dir });
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
