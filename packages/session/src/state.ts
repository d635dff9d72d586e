import type { AssistantMessage, Message, ToolMessage, Usage } from '@lich/core';
import { add_usage, empty_usage, one_line } from '@lich/core';
import { RUN_INPUT_LIMIT } from './recorder.js';
import type { SessionRecord, SessionStartRecord } from './records.js';

/**
 * What a sequence of records adds up to: the conversation to continue from, and the totals.
 * Built by folding records with `apply_record`, by the reader and by a handle as it appends.
 */
export interface SessionState {
  /** The `session_start` record, once seen. */
  start: SessionStartRecord | undefined;
  /**
   * The conversation by position; `undefined` marks a slot not written (a tool result still
   * running when the process died, or a record whose write failed).
   */
  slots: (Message | undefined)[];
  /** The highest run number seen. */
  runs: number;
  /** The sum of the usage of every model call recorded. */
  usage_total: Usage;
  /** How many records were applied. */
  records: number;
  /** The last `title` record's title, if any. */
  title?: string;
  /**
   * The last run: its number, how many slots came before it (`run_start.kept`), its input and
   * request id, and whether it ended (no `run_end` when its process died mid-run). Absent before
   * the first run, and when a compression moved the slots it counted.
   */
  last_run?: { run: number; kept: number; input: string; request_id?: string; ended: boolean };
}

/** A state with no records applied. */
export function empty_state(): SessionState {
  return { start: undefined, slots: [], runs: 0, usage_total: empty_usage(), records: 0 };
}

function truncate(slots: (Message | undefined)[], length: number): void {
  if (slots.length > length) slots.length = length;
}

/**
 * Applies one record to `state` in place: seeded messages are placed after the `kept` prefix of a
 * `run_start`, each message at its `index`, a compression replaces `[from, to)` with its summary
 * message, and a `run_end` trims the view to the loop's final length. Never throws.
 */
export function apply_record(state: SessionState, record: SessionRecord): void {
  state.records += 1;
  switch (record.type) {
    case 'session_start':
      state.start = record;
      return;
    case 'run_start':
      state.runs = Math.max(state.runs, record.run);
      truncate(state.slots, record.kept);
      state.last_run = {
        run: record.run,
        kept: record.kept,
        input: record.input,
        ...(record.request_id === undefined ? {} : { request_id: record.request_id }),
        ended: false,
      };
      return;
    case 'message':
      state.runs = Math.max(state.runs, record.run);
      while (state.slots.length < record.index) state.slots.push(undefined);
      state.slots[record.index] = record.message;
      if (record.usage !== undefined)
        state.usage_total = add_usage(state.usage_total, record.usage);
      return;
    case 'compress_end': {
      if (!record.ok || record.summary_message === undefined) return;
      delete state.last_run;
      const from = Math.min(record.from ?? 0, state.slots.length);
      const to = Math.min(Math.max(record.to ?? from, from), state.slots.length);
      state.slots.splice(from, to - from, record.summary_message);
      return;
    }
    case 'run_end':
      state.runs = Math.max(state.runs, record.run);
      truncate(state.slots, record.messages_count);
      if (state.last_run?.run === record.run) state.last_run.ended = true;
      return;
    case 'title':
      state.title = record.title;
      return;
    case 'budget_exhausted':
    case 'permission':
      return;
  }
}

/** Folds `records` into a new state. Never throws. */
export function state_of(records: Iterable<SessionRecord>): SessionState {
  const state = empty_state();
  for (const record of records) apply_record(state, record);
  return state;
}

/**
 * The conversation as it was before the session's last run, with what tells a retry of that run:
 * a run started again for the same request (same `request_id`), or with the same input after its
 * process died mid-run, continues from here, so the earlier attempt is replaced rather than
 * repeated. Null before the first run.
 */
export function before_last_run(state: SessionState): LastRun | null {
  const last = state.last_run;
  if (last === undefined) return null;
  const history = conversation_of({ ...state, slots: state.slots.slice(0, last.kept) });
  return {
    input: last.input,
    ...(last.request_id === undefined ? {} : { request_id: last.request_id }),
    ended: last.ended,
    history,
  };
}

/** The session's last run as `before_last_run` tells it. */
export interface LastRun {
  /** Its `run_start.input`: the last user message on one line, clamped (`RUN_INPUT_LIMIT`). */
  input: string;
  request_id?: string;
  /** False when its process died mid-run (no `run_end`). */
  ended: boolean;
  /** The conversation before it. */
  history: Message[];
}

/**
 * Whether a run of `input` for `request_id` retries `last`: the same request id, or (when neither
 * run has one) the same input of a run that never ended.
 */
export function is_retry_of(last: LastRun, input: string, request_id: string | undefined): boolean {
  if (last.request_id !== undefined || request_id !== undefined) {
    return last.request_id === request_id;
  }
  return !last.ended && one_line(input, RUN_INPUT_LIMIT) === last.input;
}

/** The text given as the result of a tool call whose result was never recorded. */
export const INTERRUPTED_TOOL_RESULT =
  'No result: the session ended before this tool call finished. Run it again if it is still needed.';

/**
 * The conversation to continue from: the written slots in order, with every tool call that has
 * no recorded result answered by an error result (`INTERRUPTED_TOOL_RESULT`), so the history is
 * valid to send to a model again. Never throws; does not modify `state`.
 */
export function conversation_of(state: SessionState): Message[] {
  const present = state.slots.filter((message): message is Message => message !== undefined);
  const conversation: Message[] = [];
  for (let position = 0; position < present.length; position++) {
    const message = present[position] as Message;
    conversation.push(message);
    if (message.role !== 'assistant' || !message.tool_calls?.length) continue;
    const answered = new Set<string>();
    while (present[position + 1]?.role === 'tool') {
      const result = present[position + 1] as ToolMessage;
      answered.add(result.tool_call_id);
      conversation.push(result);
      position += 1;
    }
    for (const call of (message as AssistantMessage).tool_calls ?? []) {
      if (answered.has(call.id)) continue;
      conversation.push({
        role: 'tool',
        tool_call_id: call.id,
        name: call.name,
        content: INTERRUPTED_TOOL_RESULT,
        is_error: true,
      });
    }
  }
  return conversation;
}
