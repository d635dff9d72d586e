import { describe, expect, it } from 'vitest';
import {
  call_tools,
  definitions,
  queued_chat,
  recorded_emitter,
  recording_runner,
  reply,
} from '../test/support.js';
import { run_conversation } from './loop.js';
import type { Message } from './types.js';

const ASK: Message[] = [{ role: 'user', content: 'list the files' }];

describe('run_conversation take_steering', () => {
  it('appends steering messages after the tool results, before the next model call', async () => {
    const chat = queued_chat([call_tools(['c1', 'echo', { text: 'a' }]), reply('done')]);
    const { emitter, events, types } = recorded_emitter();
    const pending: Message[] = [{ role: 'user', content: 'only the .ts ones' }];
    let asked = 0;
    const outcome = await run_conversation(
      { chat, tools: recording_runner(), definitions: definitions('echo'), emitter },
      ASK,
      {
        max_turns: 4,
        take_steering: () => {
          asked += 1;
          return pending.splice(0);
        },
      },
    );
    expect(asked).toBe(1);
    const second = chat.calls[1]?.messages ?? [];
    expect(second.at(-2)?.role).toBe('tool');
    expect(second.at(-1)).toEqual({ role: 'user', content: 'only the .ts ones' });
    expect(outcome.messages.at(-2)).toEqual({ role: 'user', content: 'only the .ts ones' });
    expect(types()).toContain('steer');
    const steer = events.find((event) => event.type === 'steer');
    expect(steer).toMatchObject({ turn: 1, messages: [{ content: 'only the .ts ones' }] });
    expect(types().indexOf('steer')).toBeLessThan(types().lastIndexOf('llm_start'));
  });

  it('is not asked after a final answer, and a throwing hook counts as none', async () => {
    const chat = queued_chat([call_tools(['c1', 'echo', {}]), reply('done')]);
    let asked = 0;
    const outcome = await run_conversation(
      { chat, tools: recording_runner(), definitions: definitions('echo') },
      ASK,
      {
        max_turns: 4,
        take_steering: () => {
          asked += 1;
          throw new Error('broken');
        },
      },
    );
    expect(asked).toBe(1);
    expect(outcome.stopped_reason).toBe('final');
    expect(outcome.messages.filter((message) => message.role === 'user')).toHaveLength(1);
  });
});
