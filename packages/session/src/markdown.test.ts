import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentEvent, Message } from '@lich/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { export_markdown } from './markdown.js';
import { SessionRecorder } from './recorder.js';
import { SessionStore } from './store.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lich-markdown-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('export_markdown', () => {
  it('renders messages, reasoning, tool calls and results, summaries and run ends', async () => {
    const store = new SessionStore({
      session_dir: dir,
      now: () => new Date('2025-03-01T10:00:00.000Z'),
    });
    const handle = await store.create({
      id: 's1',
      work_dir: '/w',
      model: 'gpt-x',
      lich_version: '0.1.0',
    });
    const recorder = new SessionRecorder(handle);
    const seed: Message[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'What is in notes.md?' },
    ];
    const call: Message = {
      role: 'assistant',
      content: 'Let me look.',
      reasoning: 'The user wants the file.\nRead it first.',
      tool_calls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"notes.md"}' }],
    };
    const result: Message = {
      role: 'tool',
      tool_call_id: 'c1',
      name: 'read_file',
      content: 'Some code:\n```js\nx()\n```',
    };
    const summary: Message = { role: 'user', content: 'Earlier: the file was read.' };
    const answer: Message = { role: 'assistant', content: 'It holds some **code**.' };
    const events: AgentEvent[] = [
      { type: 'run_start', messages: seed, max_turns: 2 },
      {
        type: 'llm_end',
        turn: 1,
        message: call,
        finish_reason: 'tool_calls',
        duration_ms: 1,
        usage: { input_tokens: 5, output_tokens: 1 },
      },
      {
        type: 'tool_call_end',
        turn: 1,
        call: { id: 'c1', name: 'read_file', arguments: '{}' },
        result: { ok: true, output: '', duration_ms: 1 },
        message: result as Extract<Message, { role: 'tool' }>,
      },
      {
        type: 'compress_end',
        ok: true,
        before_count: 4,
        after_count: 3,
        from: 1,
        to: 3,
        summary: 'Earlier: the file was read.',
        summary_message: summary,
      },
      { type: 'budget_exhausted', turns_used: 2, max_turns: 2, grace: true },
      {
        type: 'llm_end',
        turn: 2,
        message: answer,
        finish_reason: 'stop',
        duration_ms: 1,
        usage: { input_tokens: 7, output_tokens: 3 },
      },
      {
        type: 'run_end',
        stopped_reason: 'budget',
        turns_used: 2,
        final: 'x',
        messages: [seed[0] as Message, summary, result, answer],
      },
    ];
    for (const event of events) recorder.record(event);
    await recorder.idle();
    await handle.close();

    const markdown = await export_markdown(handle.path);
    expect(markdown).toContain('# What is in notes.md?');
    expect(markdown).toContain('- Session: `s1`');
    expect(markdown).toContain('- Model: gpt-x');
    expect(markdown).toContain('## Run 1');
    expect(markdown).toContain('### System prompt\n\n> Be brief.');
    expect(markdown).toContain('### User\n\nWhat is in notes.md?');
    expect(markdown).toContain('> **Reasoning**\n>\n> The user wants the file.\n> Read it first.');
    expect(markdown).toContain(
      '**Tool call** `read_file` (`c1`)\n\n```json\n{\n  "path": "notes.md"\n}\n```',
    );
    // a result holding a fence is wrapped in a longer one
    expect(markdown).toContain(
      '### Tool result `read_file` (`c1`)\n\n````\nSome code:\n```js\nx()\n```\n````',
    );
    expect(markdown).toContain(
      '> **Summary** of messages 2–3 (2 messages compressed)\n>\n> Earlier: the file was read.',
    );
    expect(markdown).toContain(
      '_The turn budget ran out after 2 of 2 turns; a last call without tools wraps up._',
    );
    expect(markdown).toContain('It holds some **code**.');
    expect(markdown).toContain('_Run 1 ended: budget after 2 turns; usage 12 in, 4 out._');
    expect(markdown.indexOf('### User')).toBeLessThan(markdown.indexOf('### Assistant'));
  });
});
