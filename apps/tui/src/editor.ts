/**
 * The input editor as a pure state machine: multi-line text with a cursor, history (↑/↓),
 * reverse search (Ctrl+R), paste chips, and Tab completion of `/commands` and `@paths`. The
 * screen draws `EditorState`; `editor_key` turns one key into the next state and, on Enter, the
 * text to submit.
 */
import type { Key } from './keys.js';

/** A paste too large to show inline: a chip in the text stands for it until it is sent. */
export interface PasteChip {
  id: number;
  text: string;
}

/** What the editor holds. */
export interface EditorState {
  text: string;
  /** The cursor as an index into `text`. */
  cursor: number;
  /** Earlier inputs, oldest first. */
  history: readonly string[];
  /** The entry shown while browsing history, or null. */
  history_index: number | null;
  /** The text being written before browsing started. */
  draft: string;
  pastes: readonly PasteChip[];
  next_paste: number;
  /** Reverse search (Ctrl+R): the query and the history entry it found. */
  search: { query: string; match: number | null } | null;
  /** Cycling through completions with repeated Tab: what was typed, and which one is shown. */
  cycle: { start: number; typed: string; index: number } | null;
}

/** Where completions come from. */
export interface CompletionSources {
  /** Command names, without the slash. */
  commands: readonly string[];
  /** Paths relative to the work dir. */
  files: readonly string[];
}

/** What a key did besides changing the state. */
export type EditorOutcome = { kind: 'submit'; text: string; steer: boolean } | null;

/** Pastes longer than this many lines (or characters) become a chip. */
const CHIP_LINES = 4;
const CHIP_CHARS = 800;
const HISTORY_LIMIT = 500;

/** An empty editor with `history` (oldest first). */
export function initial_editor(history: readonly string[] = []): EditorState {
  return {
    text: '',
    cursor: 0,
    history: history.slice(-HISTORY_LIMIT),
    history_index: null,
    draft: '',
    pastes: [],
    next_paste: 1,
    search: null,
    cycle: null,
  };
}

/** The chip's text in the editor, e.g. `[paste #1: 42 lines]`. */
export function chip_label(chip: PasteChip): string {
  const lines = chip.text.split('\n').length;
  return `[paste #${chip.id}: ${lines} line${lines === 1 ? '' : 's'}, ${chip.text.length} chars]`;
}

/** The editor's text with each chip replaced by what was pasted. */
export function expand_chips(state: EditorState): string {
  let text = state.text;
  for (const chip of state.pastes) text = text.split(chip_label(chip)).join(chip.text);
  return text;
}

function insert(state: EditorState, text: string): EditorState {
  const before = state.text.slice(0, state.cursor);
  const after = state.text.slice(state.cursor);
  return {
    ...state,
    text: before + text + after,
    cursor: state.cursor + text.length,
    history_index: null,
    cycle: null,
  };
}

function set_text(state: EditorState, text: string, cursor = text.length): EditorState {
  return { ...state, text, cursor, cycle: null };
}

function line_start(text: string, cursor: number): number {
  return text.lastIndexOf('\n', cursor - 1) + 1;
}

function line_end(text: string, cursor: number): number {
  const end = text.indexOf('\n', cursor);
  return end === -1 ? text.length : end;
}

function word_left(text: string, cursor: number): number {
  let index = cursor;
  while (index > 0 && /\s/.test(text[index - 1]!)) index -= 1;
  while (index > 0 && !/\s/.test(text[index - 1]!)) index -= 1;
  return index;
}

function word_right(text: string, cursor: number): number {
  let index = cursor;
  while (index < text.length && /\s/.test(text[index]!)) index += 1;
  while (index < text.length && !/\s/.test(text[index]!)) index += 1;
  return index;
}

/** Moves the cursor one line up or down, keeping its column where the line allows. */
function vertical(state: EditorState, direction: -1 | 1): EditorState | null {
  const { text, cursor } = state;
  const start = line_start(text, cursor);
  const column = cursor - start;
  if (direction === -1) {
    if (start === 0) return null;
    const previous = line_start(text, start - 1);
    return { ...state, cursor: Math.min(previous + column, start - 1) };
  }
  const end = line_end(text, cursor);
  if (end === text.length) return null;
  const next_end = line_end(text, end + 1);
  return { ...state, cursor: Math.min(end + 1 + column, next_end) };
}

function browse(state: EditorState, direction: -1 | 1): EditorState {
  const { history } = state;
  if (history.length === 0) return state;
  if (state.history_index === null) {
    if (direction === 1) return state;
    const index = history.length - 1;
    return { ...set_text(state, history[index]!), history_index: index, draft: state.text };
  }
  const index = state.history_index + direction;
  if (index < 0) return state;
  if (index >= history.length) return { ...set_text(state, state.draft), history_index: null };
  return { ...set_text(state, history[index]!), history_index: index };
}

/** The newest history entry at or before `from` that contains `query`. */
function search_from(history: readonly string[], query: string, from: number): number | null {
  for (let index = Math.min(from, history.length - 1); index >= 0; index -= 1) {
    if (query === '' || history[index]!.includes(query)) return index;
  }
  return null;
}

function search_key(state: EditorState, key: Key): EditorState {
  const search = state.search!;
  const { history } = state;
  if (key.ctrl && key.name === 'r') {
    const from = (search.match ?? history.length) - 1;
    const match = search_from(history, search.query, from);
    return match === null ? state : { ...state, search: { ...search, match } };
  }
  if ((key.ctrl && key.name === 'g') || key.name === 'escape') return { ...state, search: null };
  if (key.name === 'enter' || key.name === 'tab' || key.name === 'left' || key.name === 'right') {
    const found = search.match === null ? state.text : history[search.match]!;
    return { ...set_text(state, found), search: null };
  }
  let query = search.query;
  if (key.name === 'backspace') query = query.slice(0, -1);
  else if ((key.name === 'text' || key.name === 'paste') && key.text) query += key.text;
  else return state;
  return { ...state, search: { query, match: search_from(history, query, history.length - 1) } };
}

/** The word being completed: a `/command` at the start, or an `@path` anywhere. */
export function completion_target(
  state: EditorState,
  sources: CompletionSources,
): { start: number; end: number; candidates: string[] } | null {
  const before = state.text.slice(0, state.cursor);
  if (/^\/[\w-]*$/.test(before)) {
    const typed = before.slice(1).toLowerCase();
    const candidates = sources.commands
      .filter((name) => name.startsWith(typed))
      .map((name) => `/${name}`);
    return { start: 0, end: state.cursor, candidates };
  }
  const at = /(?:^|\s)@([^\s]*)$/.exec(before);
  if (at === null) return null;
  const typed = at[1]!;
  const lower = typed.toLowerCase();
  const starts = sources.files.filter((path) => path.toLowerCase().startsWith(lower));
  const contains = sources.files.filter(
    (path) => !path.toLowerCase().startsWith(lower) && path.toLowerCase().includes(lower),
  );
  const candidates = [...starts, ...contains].slice(0, 50).map((path) => `@${path}`);
  return { start: state.cursor - typed.length - 1, end: state.cursor, candidates };
}

function common_prefix(words: readonly string[]): string {
  let prefix = words[0] ?? '';
  for (const word of words) {
    while (!word.startsWith(prefix)) prefix = prefix.slice(0, -1);
  }
  return prefix;
}

/** The state as it was before Tab cycling began: its candidates are the ones cycled through. */
function before_cycle(state: EditorState): EditorState {
  const { cycle } = state;
  if (cycle === null) return state;
  return {
    ...state,
    text: state.text.slice(0, cycle.start) + cycle.typed + state.text.slice(state.cursor),
    cursor: cycle.start + cycle.typed.length,
  };
}

/**
 * The completions on offer for what is being typed, and which one Tab cycling shows (-1 for
 * none); null when the cursor is not after a `/command` or `@path`.
 */
export function completions(
  state: EditorState,
  sources: CompletionSources,
): { candidates: string[]; selected: number; typed: string } | null {
  const working = before_cycle(state);
  const target = completion_target(working, sources);
  if (target === null) return null;
  const selected =
    state.cycle === null || target.candidates.length === 0
      ? -1
      : state.cycle.index % target.candidates.length;
  return {
    candidates: target.candidates,
    selected,
    typed: working.text.slice(target.start, target.end),
  };
}

function complete(state: EditorState, sources: CompletionSources): EditorState {
  const { cycle } = state;
  // While cycling, candidates are those of what was typed before the first Tab.
  const working = before_cycle(state);
  const target = completion_target(working, sources);
  if (target === null || target.candidates.length === 0) return state;
  const typed = working.text.slice(target.start, target.end);
  const prefix = common_prefix(target.candidates);
  const replace = (choice: string, next_cycle: EditorState['cycle']): EditorState => ({
    ...working,
    text: working.text.slice(0, target.start) + choice + working.text.slice(target.end),
    cursor: target.start + choice.length,
    cycle: next_cycle,
  });
  if (target.candidates.length === 1) {
    const only = target.candidates[0]!;
    return replace(only.endsWith('/') ? only : `${only} `, null);
  }
  if (cycle === null && prefix.length > typed.length) return replace(prefix, null);
  const index = cycle === null ? 0 : cycle.index + 1;
  const choice = target.candidates[index % target.candidates.length]!;
  return replace(choice, { start: target.start, typed, index });
}

function paste(state: EditorState, text: string): EditorState {
  const lines = text.split('\n').length;
  if (lines <= CHIP_LINES && text.length <= CHIP_CHARS) return insert(state, text);
  const chip = { id: state.next_paste, text };
  return insert(
    { ...state, pastes: [...state.pastes, chip], next_paste: chip.id + 1 },
    chip_label(chip),
  );
}

/** Adds `entry` to the history (not twice in a row) and empties the editor. */
export function after_submit(state: EditorState, entry: string): EditorState {
  const history =
    entry.trim() === '' || state.history.at(-1) === entry
      ? state.history
      : [...state.history, entry].slice(-HISTORY_LIMIT);
  return { ...initial_editor(history), next_paste: state.next_paste };
}

/**
 * The editor after `key`. Enter submits (the text with chips expanded), unless the character
 * before the cursor is `\`, which becomes a new line; Shift+Enter and Alt+Enter insert a new
 * line; Ctrl+Enter submits as steering. Keys the editor has no use for leave it as it was.
 */
export function editor_key(
  state: EditorState,
  key: Key,
  sources: CompletionSources = { commands: [], files: [] },
): { state: EditorState; outcome: EditorOutcome } {
  const same = { state, outcome: null };
  if (state.search !== null) return { state: search_key(state, key), outcome: null };
  const { text, cursor } = state;
  const next = (value: EditorState) => ({ state: value, outcome: null });
  switch (key.name) {
    case 'text':
      return next(insert(state, key.text ?? ''));
    case 'paste':
      return next(paste(state, key.text ?? ''));
    case 'enter': {
      if (key.shift || key.meta) return next(insert(state, '\n'));
      if (!key.ctrl && text[cursor - 1] === '\\') {
        return next({
          ...set_text(state, `${text.slice(0, cursor - 1)}\n${text.slice(cursor)}`, cursor),
        });
      }
      const submitted = expand_chips(state);
      if (submitted.trim() === '') return same;
      return { state, outcome: { kind: 'submit', text: submitted, steer: key.ctrl } };
    }
    case 'backspace': {
      if (cursor === 0) return same;
      const from = key.meta ? word_left(text, cursor) : cursor - 1;
      return next(set_text(state, text.slice(0, from) + text.slice(cursor), from));
    }
    case 'delete':
      return next(set_text(state, text.slice(0, cursor) + text.slice(cursor + 1), cursor));
    case 'left':
      return next({
        ...state,
        cursor: key.ctrl || key.meta ? word_left(text, cursor) : Math.max(0, cursor - 1),
      });
    case 'right':
      return next({
        ...state,
        cursor: key.ctrl || key.meta ? word_right(text, cursor) : Math.min(text.length, cursor + 1),
      });
    case 'home':
      return next({ ...state, cursor: line_start(text, cursor) });
    case 'end':
      return next({ ...state, cursor: line_end(text, cursor) });
    case 'up':
      return next(vertical(state, -1) ?? browse(state, -1));
    case 'down':
      return next(vertical(state, 1) ?? browse(state, 1));
    case 'tab':
      return key.shift ? same : next(complete(state, sources));
  }
  if (key.meta && key.name === 'b') return next({ ...state, cursor: word_left(text, cursor) });
  if (key.meta && key.name === 'f') return next({ ...state, cursor: word_right(text, cursor) });
  if (!key.ctrl) return same;
  switch (key.name) {
    case 'a':
      return next({ ...state, cursor: line_start(text, cursor) });
    case 'e':
      return next({ ...state, cursor: line_end(text, cursor) });
    case 'b':
      return next({ ...state, cursor: Math.max(0, cursor - 1) });
    case 'f':
      return next({ ...state, cursor: Math.min(text.length, cursor + 1) });
    case 'u': {
      const start = line_start(text, cursor);
      return next(set_text(state, text.slice(0, start) + text.slice(cursor), start));
    }
    case 'k':
      return next(
        set_text(state, text.slice(0, cursor) + text.slice(line_end(text, cursor)), cursor),
      );
    case 'w': {
      const from = word_left(text, cursor);
      return next(set_text(state, text.slice(0, from) + text.slice(cursor), from));
    }
    case 'r':
      return next({
        ...state,
        search: { query: '', match: search_from(state.history, '', state.history.length - 1) },
      });
    case 'p':
      return next(browse(state, -1));
    case 'n':
      return next(browse(state, 1));
  }
  return same;
}
