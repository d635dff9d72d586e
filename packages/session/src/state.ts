import type { AssistantMessage, Message, ToolMessage, Usage } from '@lich/core';
import { add_usage, empty_usage, one_line } from '@lich/core';
import type { SessionRecord, SessionStartRecord } from './records.js';
import { RUN_INPUT_LIMIT } from './records.js';

/** One prompt (one run) of the session, as a rewind lists it. */
export interface PromptMark {
  run: number;
  /** The run's input, on one line, clamped. */
  input: string;
  /** When the run started (ISO 8601). */
  at: string;
  /** How many messages the conversation held before it. */
  kept: number;
  /**
   * True while the conversation before it is still the first `kept` messages: a compression of
   * messages across its start, or a later run seeded with fewer, makes it false (its files can
   * still be rewound).
   */
  conversation: boolean;
  /** The checkpoint taken before its first change, and the one taken when it ended. */
  before?: string;
  after?: string;
}

/** A checkpoint the session took, in the order taken: prompts' and rewinds'. */
export interface CheckpointMark {
  kind: 'before_prompt' | 'after_prompt' | 'before_rewind' | 'after_rewind';
  checkpoint_id: string;
  run: number;
}

/** What the last rewind undid, so a redo can put it back. */
export interface LastRewind {
  run: number;
  /** The checkpoint taken just before it (restoring it is the redo of the files). */
  before?: string;
  after?: string;
  /** The messages it cut from the conversation, and the prompts that left with them. */
  cut?: (Message | undefined)[];
  prompts?: PromptMark[];
  /** `runs` when it was recorded: a run since means the conversation cannot be put back. */
  runs: number;
}

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
  /**
   * The dollars of every model call recorded; null once a call had no known price (or was
   * recorded before prices were), so a total is never understated.
   */
  cost_total_usd: number | null;
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
  /** The prompts of the conversation, oldest first (those a conversation rewind cut are gone). */
  prompts: PromptMark[];
  /** Every checkpoint the session took, oldest first. */
  checkpoints: CheckpointMark[];
  /** The last rewind, until it is redone. */
  last_rewind?: LastRewind;
}

/** A state with no records applied. */
export function empty_state(): SessionState {
  return {
    start: undefined,
    slots: [],
    runs: 0,
    usage_total: empty_usage(),
    cost_total_usd: 0,
    records: 0,
    prompts: [],
    checkpoints: [],
  };
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
      for (const prompt of state.prompts)
        if (prompt.kept > record.kept) prompt.conversation = false;
      state.prompts.push({
        run: record.run,
        input: record.input,
        at: record.at,
        kept: record.kept,
        conversation: true,
      });
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
      if (record.source === 'llm') {
        const cost = record.cost_usd;
        state.cost_total_usd =
          state.cost_total_usd === null || cost === undefined || cost === null
            ? null
            : state.cost_total_usd + cost;
      }
      return;
    case 'compress_end': {
      if (!record.ok || record.summary_message === undefined) return;
      delete state.last_run;
      const from = Math.min(record.from ?? 0, state.slots.length);
      const to = Math.min(Math.max(record.to ?? from, from), state.slots.length);
      state.slots.splice(from, to - from, record.summary_message);
      for (const prompt of state.prompts) {
        if (prompt.kept >= to) prompt.kept -= to - from - 1;
        else if (prompt.kept > from) prompt.conversation = false;
      }
      return;
    }
    case 'checkpoint': {
      state.checkpoints.push({
        kind: record.kind,
        checkpoint_id: record.checkpoint_id,
        run: record.run,
      });
      const prompt = state.prompts.findLast((p) => p.run === record.run);
      if (prompt !== undefined) {
        if (record.kind === 'before_prompt') prompt.before = record.checkpoint_id;
        else prompt.after = record.checkpoint_id;
      }
      return;
    }
    case 'rewind':
      apply_rewind(state, record);
      return;
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
    case 'hook':
      return;
  }
}

function apply_rewind(
  state: SessionState,
  record: Extract<SessionRecord, { type: 'rewind' }>,
): void {
  const { run } = record;
  if (record.before !== undefined) {
    state.checkpoints.push({ kind: 'before_rewind', checkpoint_id: record.before, run });
  }
  if (record.after !== undefined) {
    state.checkpoints.push({ kind: 'after_rewind', checkpoint_id: record.after, run });
  }
  const previous = state.last_rewind;
  let cut: (Message | undefined)[] | undefined;
  let prompts: PromptMark[] | undefined;
  if (record.kept !== undefined) {
    delete state.last_run;
    const kept = Math.min(record.kept, state.slots.length);
    cut = state.slots.splice(kept, state.slots.length - kept, ...(record.messages ?? []));
    if (record.redo === true) {
      state.prompts.push(...(previous?.prompts ?? []));
    } else {
      prompts = state.prompts.filter((prompt) => prompt.run >= run);
      state.prompts = state.prompts.filter((prompt) => prompt.run < run);
    }
  }
  if (record.redo === true) {
    delete state.last_rewind;
    return;
  }
  state.last_rewind = {
    run,
    ...(record.before === undefined ? {} : { before: record.before }),
    ...(record.after === undefined ? {} : { after: record.after }),
    ...(cut === undefined ? {} : { cut }),
    ...(prompts === undefined ? {} : { prompts }),
    runs: state.runs,
  };
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
