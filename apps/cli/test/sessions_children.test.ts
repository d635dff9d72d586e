/**
 * `lich sessions list` with subagents: the sessions a person started, each saying how many
 * subagents ran beneath it; `--all` lists the children too, indented beneath their parent; `-c`
 * never continues a child.
 */
import type { FakeServer } from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import { openai_env, run_lich, type Sandbox, sandbox_and_server_each } from './helpers.js';

let sandbox: Sandbox;
let server: FakeServer;
sandbox_and_server_each((made) => ({ sandbox, server } = made));

const lich = (args: string[], env: Record<string, string> = sandbox.env) =>
  run_lich(args, { cwd: sandbox.work_dir, env });

function task(description: string) {
  return { name: 'task', arguments: { description, prompt: `job: ${description}` } };
}

describe('lich sessions list with subagents', () => {
  it('hides children by default with a count, lists them beneath their parent with --all', async () => {
    server.enqueue(
      { tool_calls: [task('first job'), task('second job')] },
      { text: 'child answer' },
      { text: 'child answer' },
      { text: 'both done' },
    );
    const parent_run = await lich(['delegate two jobs'], openai_env(sandbox, server.base_url));
    expect(parent_run.code).toBe(0);
    server.enqueue({ text: 'plain answer' });
    expect((await lich(['a plain question'], openai_env(sandbox, server.base_url))).code).toBe(0);

    const listed = await lich(['sessions', 'list']);
    expect(listed.code).toBe(0);
    const rows = listed.stdout.trim().split('\n');
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain('a plain question');
    expect(rows[0]).not.toContain('subagent');
    expect(rows[1]).toMatch(/delegate two jobs {2}\(\+2 subagents\)$/);
    expect(listed.stderr).toContain('2 subagent sessions not listed (lich sessions list --all)');

    const all = await lich(['sessions', 'list', '--all']);
    const nested = all.stdout.trim().split('\n');
    expect(nested).toHaveLength(4);
    expect(nested[1]).toContain('delegate two jobs');
    // the two children, started at once, beneath their parent in the order they were created
    expect(
      nested
        .slice(2)
        .map((row) => /^↳ \w+ .*(job: \w+ job)$/.exec(row)?.[1])
        .sort(),
    ).toEqual(['job: first job', 'job: second job']);
    expect(all.stderr).not.toContain('not listed');

    // --limit counts the sessions a person started: the children come along with theirs
    const limited = await lich(['sessions', 'list', '--all', '--limit', '1']);
    expect(limited.stdout.trim().split('\n')).toHaveLength(1);
    const second_page = await lich(['sessions', 'list', '--all', '--limit', '2']);
    expect(second_page.stdout.trim().split('\n')).toHaveLength(4);

    const json = JSON.parse((await lich(['sessions', 'list', '--json', '--all'])).stdout) as {
      id: string;
      parent_session_id?: string;
      subagents: number;
    }[];
    const [, parent, first, second] = json;
    expect(parent?.subagents).toBe(2);
    expect(first?.parent_session_id).toBe(parent?.id);
    expect(second?.parent_session_id).toBe(parent?.id);
    const first_title = (first as { title?: string } | undefined)?.title ?? '';

    // a child is resumable like any other session; that makes it the newest file…
    server.enqueue({ text: 'child again' });
    const resumed = await lich(
      ['sessions', 'resume', first?.id ?? '', 'one more thing'],
      openai_env(sandbox, server.base_url),
    );
    expect(resumed.code).toBe(0);
    expect(JSON.stringify(server.requests.at(-1)?.body)).toContain(first_title);
    // …yet -c continues the newest conversation a person started, never a child
    server.enqueue({ text: 'continued' });
    const continued = await lich(['-c', 'and then?'], openai_env(sandbox, server.base_url));
    expect(continued.code).toBe(0);
    const last = server.requests.at(-1)?.body as { messages: { content: string }[] };
    expect(JSON.stringify(last.messages)).toContain('a plain question');
    expect(JSON.stringify(last.messages)).not.toContain(first_title);
  });
});
