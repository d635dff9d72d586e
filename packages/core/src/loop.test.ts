import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import {
  call_tools,
  deferred,
  definitions,
  history_problems,
  next_turn,
  queued_chat,
  recorded_emitter,
  recording_runner,
  reply,
  until_abort,
} from '../test/support.js';
import { BudgetStop, is_budget_stop } from './budget_stop.js';
import { AgentEmitter, type AgentEvent } from './events.js';
import { DEFAULT_GRACE_INSTRUCTION, INTERRUPTED_MARK, run_conversation } from './loop.js';
import { estimate_tokens } from './tokens.js';
import type { ChatFn, Message, ToolMessage } from './types.js';

const ASK: Message[] = [{ role: 'user', content: 'what is 2 + 3?' }];

describe('run_conversation', () => {
  it('ends with the first answer that calls no tools', async () => {
    const chat = queued_chat([reply('5', { usage: { input_tokens: 3, output_tokens: 1 } })]);
    const outcome = await run_conversation(
      { chat, tools: recording_runner(), definitions: [] },
      ASK,
      { max_turns: 4, system_prompt: 'be brief' },
    );
    expect(outcome.stopped_reason).toBe('final');
    expect(outcome.final).toBe('5');
    expect(outcome.turns_used).toBe(1);
    expect(outcome.last_result?.usage).toEqual({ input_tokens: 3, output_tokens: 1 });
    expect(outcome.messages).toEqual([
      { role: 'system', content: 'be brief' },
      ASK[0],
      { role: 'assistant', content: '5' },
    ]);
    expect(chat.calls[0]?.messages).toEqual(outcome.messages.slice(0, 2));
  });

  it('runs tools, feeds their results back and emits events in order for a two-tool turn', async () => {
    const chat = queued_chat([
      (_messages, _tools, options) => {
        options?.on_delta?.({ kind: 'reasoning', text: 'need tools' });
        return call_tools(['a', 'add', { a: 2, b: 3 }], ['b', 'echo', { text: 'hi' }]);
      },
      (_messages, _tools, options) => {
        options?.on_delta?.({ kind: 'text', text: 'It is ' });
        options?.on_delta?.({ kind: 'text', text: '5.' });
        return reply('It is 5.');
      },
    ]);
    const runner = recording_runner({
      add: (args) => {
        const { a, b } = args as { a: number; b: number };
        return String(a + b);
      },
      echo: (args) => (args as { text: string }).text,
    });
    const { emitter, events, types } = recorded_emitter();
    const outcome = await run_conversation(
      { chat, tools: runner, definitions: definitions('add', 'echo'), emitter },
      ASK,
      { max_turns: 5 },
    );
    expect(types()).toEqual([
      'run_start',
      'llm_start',
      'llm_delta',
      'llm_end',
      'tool_call_start',
      'tool_call_start',
      'tool_call_end',
      'tool_call_end',
      'llm_start',
      'llm_delta',
      'llm_delta',
      'llm_end',
      'run_end',
    ]);
    const calls = events.flatMap((event) =>
      event.type === 'tool_call_start' || event.type === 'tool_call_end' ? [event.call.id] : [],
    );
    expect(calls).toEqual(['a', 'b', 'a', 'b']);
    const start = events.find((event) => event.type === 'tool_call_start');
    expect(start).toMatchObject({ turn: 1, args: { a: 2, b: 3 } });
    const deltas = events.filter((event) => event.type === 'llm_delta');
    expect(deltas.map((event) => [event.turn, event.delta.text])).toEqual([
      [1, 'need tools'],
      [2, 'It is '],
      [2, '5.'],
    ]);
    const run_end = events.at(-1);
    expect(run_end).toMatchObject({ type: 'run_end', stopped_reason: 'final', final: 'It is 5.' });
    expect(outcome.turns_used).toBe(2);
    expect(outcome.messages.slice(2, 4)).toEqual([
      { role: 'tool', tool_call_id: 'a', name: 'add', content: '5' },
      { role: 'tool', tool_call_id: 'b', name: 'echo', content: 'hi' },
    ]);
    expect(chat.calls[1]?.messages).toEqual(outcome.messages.slice(0, 4));
    expect(chat.calls[0]?.tools.map((tool) => tool.name)).toEqual(['add', 'echo']);
    expect(history_problems(outcome.messages)).toEqual([]);
  });

  it('runs the calls of one turn in parallel and appends results in call order', async () => {
    const slow = deferred<string>();
    const chat = queued_chat([
      call_tools(['1', 'slow', {}], ['2', 'fast', {}], ['3', 'fast', {}]),
      reply('done'),
    ]);
    const all_started = deferred();
    const started = () => {
      if (runner.runs.length === 3) all_started.resolve();
    };
    const runner = recording_runner({
      slow: () => {
        started();
        return slow.promise;
      },
      fast: () => {
        started();
        return 'quick';
      },
    });
    const { emitter, events } = recorded_emitter();
    const running = run_conversation(
      { chat, tools: runner, definitions: definitions('slow', 'fast'), emitter },
      ASK,
      { max_turns: 3 },
    );
    await all_started.promise;
    await next_turn();
    // every call started while the first is still running; none was appended before it
    expect(runner.runs.map((run) => run.name)).toEqual(['slow', 'fast', 'fast']);
    expect(events.some((event) => event.type === 'tool_call_end')).toBe(false);
    slow.resolve('late');
    const outcome = await running;
    const tools = outcome.messages.filter(
      (message): message is ToolMessage => message.role === 'tool',
    );
    expect(tools.map((message) => [message.tool_call_id, message.content])).toEqual([
      ['1', 'late'],
      ['2', 'quick'],
      ['3', 'quick'],
    ]);
  });

  it('keeps one abort listener on the signal for a turn of many parallel calls', async () => {
    const controller = new AbortController();
    const { signal } = controller;
    let most = 0;
    const add = signal.addEventListener.bind(signal);
    signal.addEventListener = ((...args: Parameters<typeof add>) => {
      add(...args);
      most = Math.max(most, getEventListeners(signal, 'abort').length);
    }) as typeof add;
    const many = Array.from({ length: 30 }, (_, index): [string, string, unknown] => [
      `c${index}`,
      'wait',
      {},
    ]);
    const chat = queued_chat([call_tools(...many), reply('done')]);
    const runner = recording_runner({
      wait: () => next_turn().then(() => 'ok'),
    });
    const outcome = await run_conversation(
      { chat, tools: runner, definitions: definitions('wait') },
      ASK,
      { max_turns: 2, signal },
    );
    expect(outcome.final).toBe('done');
    // the turn's many parallel calls race one latch on the run's signal, not a listener each
    expect(most).toBeLessThanOrEqual(2);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('runs a turn in order when one of its calls may not run alongside the others', async () => {
    const order: string[] = [];
    const slow = (name: string) => async () => {
      order.push(`${name} start`);
      await next_turn();
      order.push(`${name} end`);
      return name;
    };
    const run = (calls: [string, string, object][]) =>
      run_conversation(
        {
          chat: queued_chat([call_tools(...calls), reply('done')]),
          tools: recording_runner({ read: slow('read'), write: slow('write') }),
          definitions: definitions('read', 'write'),
        },
        ASK,
        { max_turns: 3, concurrent_tool: (name) => name === 'read' },
      );
    await run([
      ['1', 'write', {}],
      ['2', 'read', {}],
    ]);
    expect(order).toEqual(['write start', 'write end', 'read start', 'read end']);
    order.length = 0;
    // reads alone still run at once
    await run([
      ['1', 'read', {}],
      ['2', 'read', {}],
    ]);
    expect(order.slice(0, 2)).toEqual(['read start', 'read start']);
  });

  it('runs the calls one after another when parallel_tools is false', async () => {
    const first = deferred<string>();
    const chat = queued_chat([call_tools(['1', 'wait', {}], ['2', 'wait', {}]), reply('done')]);
    const first_started = deferred();
    let calls = 0;
    const runner = recording_runner({
      wait: () => {
        if (++calls > 1) return 'second';
        first_started.resolve();
        return first.promise;
      },
    });
    const running = run_conversation(
      { chat, tools: runner, definitions: definitions('wait') },
      ASK,
      { max_turns: 3, parallel_tools: false },
    );
    await first_started.promise;
    await next_turn();
    expect(runner.runs).toHaveLength(1);
    first.resolve('first');
    const outcome = await running;
    expect(runner.runs).toHaveLength(2);
    expect(
      outcome.messages.filter((message) => message.role === 'tool').map((m) => m.content),
    ).toEqual(['first', 'second']);
  });

  it('hands each tool the run signal, its call id and the tool context', async () => {
    const controller = new AbortController();
    const chat = queued_chat([call_tools(['c1', 'look', {}]), reply('ok')]);
    const runner = recording_runner({ look: () => 'seen' });
    await run_conversation(
      {
        chat,
        tools: runner,
        definitions: definitions('look'),
        tool_context: { work_dir: '/tmp/work', extra: 1 },
      },
      ASK,
      { max_turns: 2, signal: controller.signal },
    );
    expect(runner.runs[0]?.context).toEqual({
      work_dir: '/tmp/work',
      extra: 1,
      signal: controller.signal,
      tool_call_id: 'c1',
      on_running: expect.any(Function),
    });
    expect(chat.calls[0]?.options?.signal).toBe(controller.signal);
  });

  describe('abort', () => {
    it('stops before the first turn when the signal already fired', async () => {
      const chat = queued_chat([reply('never')]);
      const { emitter, types } = recorded_emitter();
      const outcome = await run_conversation(
        { chat, tools: recording_runner(), definitions: [], emitter },
        ASK,
        { max_turns: 2, signal: AbortSignal.abort() },
      );
      expect(outcome).toMatchObject({ stopped_reason: 'aborted', final: null, turns_used: 0 });
      expect(chat.calls).toHaveLength(0);
      expect(types()).toEqual(['run_start', 'run_end']);
    });

    it('ends with stopped_reason aborted when aborted during a chat call', async () => {
      const controller = new AbortController();
      const chat_started = deferred();
      const chat = queued_chat([
        (_m, _t, options) => {
          chat_started.resolve();
          return until_abort(options?.signal);
        },
      ]);
      const { emitter, events } = recorded_emitter();
      const running = run_conversation(
        { chat, tools: recording_runner(), definitions: [], emitter },
        ASK,
        { max_turns: 2, signal: controller.signal },
      );
      await chat_started.promise;
      controller.abort();
      const outcome = await running;
      expect(outcome).toMatchObject({ stopped_reason: 'aborted', final: null, turns_used: 1 });
      expect(outcome.messages).toEqual(ASK);
      expect(events.at(-1)).toMatchObject({ type: 'run_end', stopped_reason: 'aborted' });
    });

    it('does not wait for a ChatFn that ignores the signal', async () => {
      const controller = new AbortController();
      const never = deferred<never>();
      const chat = queued_chat([
        () => {
          queueMicrotask(() => controller.abort());
          return never.promise;
        },
      ]);
      const running = run_conversation({ chat, tools: recording_runner(), definitions: [] }, ASK, {
        max_turns: 2,
        signal: controller.signal,
      });
      expect((await running).stopped_reason).toBe('aborted');
    });

    it('answers every call with a result when aborted during a tool', async () => {
      const controller = new AbortController();
      const chat = queued_chat([
        call_tools(['done', 'quick', {}], ['hang', 'hang', {}], ['late', 'quick', {}]),
        reply('never asked'),
      ]);
      const three_started = deferred();
      const started = () => {
        if (runner.runs.length === 3) three_started.resolve();
      };
      const runner = recording_runner({
        quick: () => {
          started();
          return 'fine';
        },
        hang: () => {
          started();
          return new Promise(() => {}); // ignores its signal on purpose
        },
      });
      const running = run_conversation(
        { chat, tools: runner, definitions: definitions('quick', 'hang') },
        ASK,
        { max_turns: 3, signal: controller.signal },
      );
      // all three started; the two quick ones have answered, only the hanging one still runs
      await three_started.promise;
      await next_turn();
      controller.abort();
      const outcome = await running;
      expect(outcome.stopped_reason).toBe('aborted');
      expect(chat.calls).toHaveLength(1);
      const tools = outcome.messages.filter(
        (message): message is ToolMessage => message.role === 'tool',
      );
      expect(tools.map((message) => [message.tool_call_id, message.is_error ?? false])).toEqual([
        ['done', false],
        ['hang', true],
        ['late', false],
      ]);
      expect(tools[1]?.content).toMatch(/aborted/);
      expect(history_problems(outcome.messages)).toEqual([]);
    });

    it('does not start the remaining sequential calls after an abort', async () => {
      const controller = new AbortController();
      const chat = queued_chat([call_tools(['1', 'stop', {}], ['2', 'stop', {}])]);
      const runner = recording_runner({
        stop: () => {
          controller.abort();
          return 'stopped';
        },
      });
      const outcome = await run_conversation(
        { chat, tools: runner, definitions: definitions('stop') },
        ASK,
        { max_turns: 3, signal: controller.signal, parallel_tools: false },
      );
      expect(runner.runs).toHaveLength(1);
      expect(outcome.stopped_reason).toBe('aborted');
      expect(outcome.messages.at(-1)).toMatchObject({ tool_call_id: '2', is_error: true });
      expect(history_problems(outcome.messages)).toEqual([]);
    });
  });

  describe('budget', () => {
    it('makes one grace call without tools and ends with its answer', async () => {
      const chat = queued_chat([
        call_tools(['1', 'step', {}]),
        call_tools(['2', 'step', {}]),
        {
          ...call_tools(['3', 'step', {}]),
          message: {
            role: 'assistant',
            content: 'wrapped up',
            tool_calls: [{ id: '3', name: 'step', arguments: '{}' }],
          },
        },
      ]);
      const runner = recording_runner({ step: () => 'stepped' });
      const { emitter, events, types } = recorded_emitter();
      const outcome = await run_conversation(
        { chat, tools: runner, definitions: definitions('step'), emitter },
        ASK,
        { max_turns: 2 },
      );
      expect(outcome.stopped_reason).toBe('max_turns');
      expect(outcome.final).toBe('wrapped up');
      expect(outcome.turns_used).toBe(2);
      expect(runner.runs).toHaveLength(2);
      expect(chat.calls).toHaveLength(3);
      const grace = chat.calls[2];
      expect(grace?.tools).toEqual([]);
      expect(grace?.messages.at(-1)).toEqual({ role: 'user', content: DEFAULT_GRACE_INSTRUCTION });
      // the instruction reaches the model but is not kept; the grace answer's tool calls are dropped
      expect(
        outcome.messages.some((message) => message.content === DEFAULT_GRACE_INSTRUCTION),
      ).toBe(false);
      expect(outcome.messages.at(-1)).toEqual({ role: 'assistant', content: 'wrapped up' });
      expect(outcome.last_result?.message).toEqual({ role: 'assistant', content: 'wrapped up' });
      expect(history_problems(outcome.messages)).toEqual([]);
      expect(types().slice(-4)).toEqual(['budget_exhausted', 'llm_start', 'llm_end', 'run_end']);
      expect(events.find((event) => event.type === 'budget_exhausted')).toEqual({
        type: 'budget_exhausted',
        turns_used: 2,
        max_turns: 2,
        grace: true,
      });
      expect(events.filter((event) => event.type === 'llm_start').at(-1)).toEqual({
        type: 'llm_start',
        turn: 3,
        grace: true,
        // the grace call offers no tools: only the history counts
        context_tokens: estimate_tokens(outcome.messages.slice(0, -1)),
      });
    });

    it('sends the given grace instruction', async () => {
      const chat = queued_chat([call_tools(['1', 'step', {}]), reply('bye')]);
      await run_conversation(
        { chat, tools: recording_runner({ step: () => 'ok' }), definitions: definitions('step') },
        ASK,
        { max_turns: 1, grace_instruction: 'stop now' },
      );
      expect(chat.calls[1]?.messages.at(-1)).toEqual({ role: 'user', content: 'stop now' });
    });

    it('ends at the budget without a grace call when grace_call is false', async () => {
      const chat = queued_chat([call_tools(['1', 'step', {}])]);
      const { emitter, events } = recorded_emitter();
      const outcome = await run_conversation(
        {
          chat,
          tools: recording_runner({ step: () => 'ok' }),
          definitions: definitions('step'),
          emitter,
        },
        ASK,
        { max_turns: 1, grace_call: false },
      );
      expect(outcome).toMatchObject({ stopped_reason: 'max_turns', final: null, turns_used: 1 });
      expect(chat.calls).toHaveLength(1);
      expect(events.find((event) => event.type === 'budget_exhausted')).toMatchObject({
        grace: false,
      });
      expect(history_problems(outcome.messages)).toEqual([]);
    });

    it('does not use the grace call when the last turn within the budget was final', async () => {
      const chat = queued_chat([call_tools(['1', 'step', {}]), reply('done')]);
      const { emitter, types } = recorded_emitter();
      const outcome = await run_conversation(
        {
          chat,
          tools: recording_runner({ step: () => 'ok' }),
          definitions: definitions('step'),
          emitter,
        },
        ASK,
        { max_turns: 2 },
      );
      expect(outcome.stopped_reason).toBe('final');
      expect(types()).not.toContain('budget_exhausted');
    });
  });

  it('keeps running when a listener throws', async () => {
    const warnings: string[] = [];
    const emitter = new AgentEmitter({
      on_listener_error: (_error, event) => warnings.push(event.type),
    });
    emitter.on(() => {
      throw new Error('listener bug');
    });
    const heard: AgentEvent['type'][] = [];
    emitter.on((event) => heard.push(event.type));
    const chat = queued_chat([call_tools(['1', 'step', {}]), reply('fine')]);
    const outcome = await run_conversation(
      {
        chat,
        tools: recording_runner({ step: () => 'ok' }),
        definitions: definitions('step'),
        emitter,
      },
      ASK,
      { max_turns: 3 },
    );
    expect(outcome.final).toBe('fine');
    expect(heard).toHaveLength(warnings.length);
    expect(heard.at(-1)).toBe('run_end');
  });

  describe('bad tool calls', () => {
    it('answers arguments that are not JSON with an error and goes on', async () => {
      const chat = queued_chat([call_tools(['1', 'add', '{"a": 1,']), reply('sorry')]);
      const runner = recording_runner({ add: () => 'never' });
      const { emitter, events } = recorded_emitter();
      const outcome = await run_conversation(
        { chat, tools: runner, definitions: definitions('add'), emitter },
        ASK,
        { max_turns: 3 },
      );
      expect(runner.runs).toHaveLength(0);
      const result = outcome.messages[2] as ToolMessage;
      expect(result).toMatchObject({ role: 'tool', tool_call_id: '1', is_error: true });
      expect(result.content).toMatch(/not valid JSON/);
      expect(result.content).toMatch(/not run/);
      expect(chat.calls[1]?.messages.at(-1)).toEqual(result);
      expect(events.find((event) => event.type === 'tool_call_start')).toMatchObject({
        args: undefined,
      });
      expect(outcome).toMatchObject({ stopped_reason: 'final', final: 'sorry' });
    });

    it('refuses arguments that are JSON but not an object, and reads empty arguments as {}', async () => {
      const chat = queued_chat([
        call_tools(['1', 'echo', '[1, 2]'], ['2', 'echo', '  ']),
        reply('ok'),
      ]);
      const runner = recording_runner({ echo: (args) => JSON.stringify(args) });
      const outcome = await run_conversation(
        { chat, tools: runner, definitions: definitions('echo') },
        ASK,
        { max_turns: 3 },
      );
      expect(outcome.messages[2]).toMatchObject({ is_error: true });
      expect(outcome.messages[2]?.content).toMatch(/must be a JSON object/);
      expect(outcome.messages[3]).toMatchObject({ content: '{}' });
      expect(runner.runs.map((run) => run.args)).toEqual([{}]);
    });

    it('refuses a tool that was not offered, naming the ones that were', async () => {
      const chat = queued_chat([call_tools(['1', 'rm_rf', {}]), reply('ok')]);
      const runner = recording_runner({ rm_rf: () => 'deleted everything' });
      const outcome = await run_conversation(
        { chat, tools: runner, definitions: definitions('read_file', 'grep') },
        ASK,
        { max_turns: 3 },
      );
      expect(runner.runs).toHaveLength(0);
      expect(outcome.messages[2]).toMatchObject({ tool_call_id: '1', is_error: true });
      expect(outcome.messages[2]?.content).toMatch(/unknown tool 'rm_rf'.*read_file, grep/);
      expect(outcome.final).toBe('ok');
    });

    it('passes the runner verdict on a tool it does not know', async () => {
      const chat = queued_chat([call_tools(['1', 'ghost', {}]), reply('ok')]);
      const outcome = await run_conversation(
        { chat, tools: recording_runner(), definitions: definitions('ghost') },
        ASK,
        { max_turns: 3 },
      );
      expect(outcome.messages[2]).toMatchObject({ content: 'unknown tool ghost', is_error: true });
    });

    it('turns a runner that rejects, throws or returns nothing into ok:false results', async () => {
      const chat = queued_chat([
        call_tools(['1', 'rejects', {}], ['2', 'throws', {}], ['3', 'nothing', {}]),
        reply('ok'),
      ]);
      const runner = {
        execute(name: string) {
          if (name === 'rejects') return Promise.reject(new Error('disk on fire'));
          if (name === 'throws') throw new Error('sync bug');
          return Promise.resolve(undefined as never);
        },
      };
      const { emitter, events } = recorded_emitter();
      const outcome = await run_conversation(
        { chat, tools: runner, definitions: definitions('rejects', 'throws', 'nothing'), emitter },
        ASK,
        { max_turns: 3 },
      );
      const ends = events.filter((event) => event.type === 'tool_call_end');
      expect(ends.map((event) => event.result.ok)).toEqual([false, false, false]);
      expect(outcome.messages[2]?.content).toMatch(/disk on fire/);
      expect(outcome.messages[3]?.content).toMatch(/sync bug/);
      expect(outcome.messages[4]?.content).toMatch(/no result/);
      expect(outcome.final).toBe('ok');
    });
  });

  describe('model errors', () => {
    it('emits run_end with error and rethrows the original error of a rejecting ChatFn', async () => {
      const failure = Object.assign(new Error('openai gpt-x: 500 overloaded'), { status: 500 });
      const chat = queued_chat([call_tools(['1', 'step', {}]), failure]);
      const { emitter, events } = recorded_emitter();
      const running = run_conversation(
        {
          chat,
          tools: recording_runner({ step: () => 'ok' }),
          definitions: definitions('step'),
          emitter,
        },
        ASK,
        { max_turns: 3 },
      );
      await expect(running).rejects.toBe(failure);
      const end = events.at(-1);
      expect(end).toMatchObject({
        type: 'run_end',
        stopped_reason: 'error',
        error: 'openai gpt-x: 500 overloaded',
        turns_used: 2,
      });
      expect(end?.type === 'run_end' && history_problems(end.messages)).toEqual([]);
    });

    it('throws a clear error when the ChatFn resolves without a message', async () => {
      for (const value of [undefined, {}, { message: null }]) {
        const chat = queued_chat([() => value as never]);
        const { emitter, events } = recorded_emitter();
        await expect(
          run_conversation({ chat, tools: recording_runner(), definitions: [], emitter }, ASK, {
            max_turns: 2,
          }),
        ).rejects.toThrow(/ChatFn resolved without a message on turn 1/);
        expect(events.at(-1)).toMatchObject({ type: 'run_end', stopped_reason: 'error' });
      }
    });

    it('repairs an answer a next call would reject', async () => {
      const chat = queued_chat([
        () => ({
          message: { role: 'assistant', content: 'fine', tool_calls: [] },
          finish_reason: 'stop',
        }),
      ]);
      const outcome = await run_conversation(
        { chat, tools: recording_runner(), definitions: [] },
        ASK,
        { max_turns: 1 },
      );
      expect(outcome.stopped_reason).toBe('final');
      expect(outcome.messages.at(-1)).toEqual({ role: 'assistant', content: 'fine' });
    });

    it('gives tool calls without an id one, so their results can answer them', async () => {
      const chat = queued_chat([
        () => ({
          message: {
            role: 'assistant',
            content: '',
            tool_calls: [{ id: '', name: 'step', arguments: { x: 1 } as never }],
          },
          finish_reason: 'tool_calls',
        }),
        reply('ok'),
      ]);
      const runner = recording_runner({ step: () => 'ok' });
      const outcome = await run_conversation(
        { chat, tools: runner, definitions: definitions('step') },
        ASK,
        { max_turns: 2 },
      );
      expect(runner.runs[0]?.args).toEqual({ x: 1 });
      expect(history_problems(outcome.messages)).toEqual([]);
    });
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])(
    'refuses max_turns %s with a RangeError before anything runs',
    async (max_turns) => {
      const chat = queued_chat([reply('never')]);
      const { emitter, events } = recorded_emitter();
      await expect(
        run_conversation({ chat, tools: recording_runner(), definitions: [], emitter }, ASK, {
          max_turns,
        }),
      ).rejects.toThrow(RangeError);
      expect(chat.calls).toHaveLength(0);
      expect(events).toHaveLength(0);
    },
  );

  it('refuses bad compression settings with a RangeError', async () => {
    const deps = { chat: queued_chat([]), tools: recording_runner(), definitions: [] };
    await expect(run_conversation(deps, ASK, { max_turns: 1, context_window: 0 })).rejects.toThrow(
      /context_window/,
    );
    await expect(
      run_conversation(deps, ASK, {
        max_turns: 1,
        context_window: 10,
        compression: { threshold: 2 },
      }),
    ).rejects.toThrow(/threshold/);
    await expect(
      run_conversation(deps, ASK, { max_turns: 1, compression: { keep_recent: 0 } }),
    ).rejects.toThrow(/keep_recent/);
  });

  it('never mutates the seed and returns messages valid for the next run', async () => {
    const seed: Message[] = [
      { role: 'system', content: 'old prompt' },
      { role: 'user', content: 'first' },
      { role: 'assistant', content: 'hello' },
      { role: 'user', content: 'now use a tool' },
    ];
    const snapshot = structuredClone(seed);
    for (const message of seed) Object.freeze(message);
    Object.freeze(seed);
    const chat = queued_chat([call_tools(['1', 'step', {}]), reply('first run done')]);
    const tools = recording_runner({ step: () => 'ok' });
    const first = await run_conversation({ chat, tools, definitions: definitions('step') }, seed, {
      max_turns: 3,
      system_prompt: 'new prompt',
    });
    expect(seed).toEqual(snapshot);
    expect(first.messages).not.toBe(seed);
    expect(first.messages[0]).toEqual({ role: 'system', content: 'new prompt' });

    const next = queued_chat([reply('second run done')]);
    const history = [...first.messages, { role: 'user', content: 'again' } as const];
    const second = await run_conversation(
      { chat: next, tools, definitions: definitions('step') },
      history,
      { max_turns: 1, system_prompt: 'new prompt' },
    );
    expect(next.calls[0]?.messages).toEqual(history);
    expect(second.messages).toHaveLength(history.length + 1);
    expect(history_problems(second.messages)).toEqual([]);
  });

  describe('compression', () => {
    const long_history = (): Message[] => {
      const messages: Message[] = [{ role: 'user', content: 'the task' }];
      for (let index = 0; index < 10; index++) {
        messages.push({
          role: 'assistant',
          content: `thinking ${index} ${'x'.repeat(200)}`,
          tool_calls: [{ id: `c${index}`, name: 'step', arguments: '{}' }],
        });
        messages.push({
          role: 'tool',
          tool_call_id: `c${index}`,
          name: 'step',
          content: 'y'.repeat(200),
        });
      }
      return messages;
    };

    it('replaces the middle with a summary before the call once over the threshold', async () => {
      const seed = long_history();
      const chat = queued_chat([reply('the agent stepped ten times'), reply('finished')]);
      const { emitter, events, types } = recorded_emitter();
      const outcome = await run_conversation(
        { chat, tools: recording_runner(), definitions: [], emitter },
        seed,
        {
          max_turns: 2,
          system_prompt: 'sys',
          context_window: 1_000,
          compression: { keep_recent: 4 },
        },
      );
      expect(types().slice(0, 4)).toEqual([
        'run_start',
        'compress_start',
        'compress_end',
        'llm_start',
      ]);
      const summary_call = chat.calls[0];
      expect(summary_call?.tools).toEqual([]);
      expect(summary_call?.messages.at(-1)?.content).toMatch(/thinking 0/);
      const end = events.find((event) => event.type === 'compress_end');
      if (end?.type !== 'compress_end') throw new Error('no compress_end');
      expect(end).toMatchObject({ ok: true, from: 2, summary: 'the agent stepped ten times' });
      // a session reader can replay the compression from the event alone
      const replayed = [{ role: 'system', content: 'sys' } as Message, ...seed];
      replayed.splice(
        end.from ?? 0,
        (end.to ?? 0) - (end.from ?? 0),
        end.summary_message as Message,
      );
      expect(chat.calls[1]?.messages).toEqual(replayed);
      expect(replayed[2]?.content).toMatch(/^Summary of earlier conversation:/);
      // one estimate: llm_start reports the compressed request, as compression counted it
      const start = events.find((event) => event.type === 'compress_start');
      const call = events.find((event) => event.type === 'llm_start');
      if (start?.type !== 'compress_start' || call?.type !== 'llm_start') throw new Error('events');
      expect(call.context_tokens).toBe(estimate_tokens(replayed));
      expect(call.context_tokens).toBeLessThan(start.estimated_tokens / 2);
      expect(end.after_count).toBe(replayed.length);
      expect(history_problems(outcome.messages)).toEqual([]);
      expect(outcome.messages.slice(0, 2)).toEqual([{ role: 'system', content: 'sys' }, seed[0]]);
      expect(outcome.final).toBe('finished');
    });

    it('leaves the history untouched and says so when the summary fails, retrying only later', async () => {
      const seed = long_history();
      const chat = queued_chat([
        new Error('summariser down'),
        call_tools(['n1', 'step', {}]),
        reply('done'),
      ]);
      const { emitter, events } = recorded_emitter();
      const outcome = await run_conversation(
        {
          chat,
          tools: recording_runner({ step: () => 'ok' }),
          definitions: definitions('step'),
          emitter,
        },
        seed,
        { max_turns: 3, context_window: 1_000, compression: { keep_recent: 4 } },
      );
      const end = events.find((event) => event.type === 'compress_end');
      expect(end).toMatchObject({ ok: false, error: expect.stringMatching(/summariser down/) });
      expect(chat.calls[1]?.messages).toEqual(seed);
      // the failed compression is not retried on the very next turn
      expect(events.filter((event) => event.type === 'compress_start')).toHaveLength(1);
      expect(outcome.final).toBe('done');
      expect(outcome.messages.slice(0, seed.length)).toEqual(seed);
    });

    it('reports an empty summary as a failure', async () => {
      const chat = queued_chat([reply('   '), reply('done')]);
      const { emitter, events } = recorded_emitter();
      await run_conversation(
        { chat, tools: recording_runner(), definitions: [], emitter },
        long_history(),
        { max_turns: 1, context_window: 1_000 },
      );
      expect(events.find((event) => event.type === 'compress_end')).toMatchObject({
        ok: false,
        error: 'the summary call returned no text',
      });
    });

    it('does not compress when disabled or under the threshold', async () => {
      for (const params of [
        { max_turns: 1, context_window: 1_000, compression: { enabled: false } },
        { max_turns: 1, context_window: 1_000_000 },
        { max_turns: 1 },
      ]) {
        const chat = queued_chat([reply('done')]);
        const { emitter, types } = recorded_emitter();
        await run_conversation(
          { chat, tools: recording_runner(), definitions: [], emitter },
          long_history(),
          params,
        );
        expect(types()).not.toContain('compress_start');
      }
    });

    it('ends as aborted when aborted during compression', async () => {
      const controller = new AbortController();
      const chat = queued_chat([
        (_m, _t, options) => {
          queueMicrotask(() => controller.abort());
          return until_abort(options?.signal);
        },
      ]);
      const outcome = await run_conversation(
        { chat, tools: recording_runner(), definitions: [] },
        long_history(),
        { max_turns: 1, context_window: 1_000, signal: controller.signal },
      );
      expect(outcome.stopped_reason).toBe('aborted');
      expect(outcome.messages).toEqual(long_history());
    });
  });
});

describe('an abort during the answer (C16)', () => {
  it('keeps the text streamed so far in the history and as the answer', async () => {
    const controller = new AbortController();
    const chat: ChatFn = (_messages, _tools, options) =>
      new Promise((_resolve, reject) => {
        options?.on_delta?.({ kind: 'reasoning', text: 'thinking' });
        options?.on_delta?.({ kind: 'text', text: 'Slow answer ' });
        options?.on_delta?.({ kind: 'text', text: 'streaming wo' });
        options?.signal?.addEventListener('abort', () => reject(new Error('aborted')));
        setTimeout(() => controller.abort(), 10);
      });
    const outcome = await run_conversation(
      {
        chat,
        tools: { execute: async () => ({ ok: true, output: '', duration_ms: 0 }) },
        definitions: [],
      },
      [{ role: 'user', content: 'answer now' }],
      { max_turns: 2, signal: controller.signal },
    );
    expect(outcome.stopped_reason).toBe('aborted');
    expect(outcome.final).toBe('Slow answer streaming wo');
    expect(outcome.messages.at(-1)).toEqual({
      role: 'assistant',
      content: `Slow answer streaming wo${INTERRUPTED_MARK}`,
    });
  });

  it('adds nothing when no answer text came before the abort', async () => {
    const controller = new AbortController();
    const chat: ChatFn = (_messages, _tools, options) =>
      new Promise((_resolve, reject) => {
        options?.signal?.addEventListener('abort', () => reject(new Error('aborted')));
        setTimeout(() => controller.abort(), 10);
      });
    const outcome = await run_conversation(
      {
        chat,
        tools: { execute: async () => ({ ok: true, output: '', duration_ms: 0 }) },
        definitions: [],
      },
      [{ role: 'user', content: 'hi' }],
      { max_turns: 2, signal: controller.signal },
    );
    expect(outcome.final).toBeNull();
    expect(outcome.messages.map((message) => message.role)).toEqual(['user']);
  });
});

describe('run_conversation and a refused call', () => {
  it('ends with stopped_reason budget, keeping the history, when the ChatFn throws a BudgetStop', async () => {
    const chat = queued_chat([
      call_tools(['c1', 'echo', { text: 'a' }]),
      new BudgetStop('the session budget of $1.00 would be crossed', 'session'),
    ]);
    const events: AgentEvent[] = [];
    const emitter = new AgentEmitter();
    emitter.on((event) => events.push(event));
    const outcome = await run_conversation(
      {
        chat,
        tools: { execute: async () => ({ ok: true, output: 'a', duration_ms: 1 }) },
        definitions: [],
        emitter,
      },
      [{ role: 'user', content: 'go' }],
      { max_turns: 5 },
    );
    expect(outcome.stopped_reason).toBe('budget');
    expect(outcome.final).toBeNull();
    expect(outcome.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(events.at(-1)).toMatchObject({ type: 'run_end', stopped_reason: 'budget' });
    expect(is_budget_stop(new BudgetStop('x', 'day'))).toBe(true);
    expect(is_budget_stop(new Error('x'))).toBe(false);
  });
});
