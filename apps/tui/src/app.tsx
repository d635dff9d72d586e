/**
 * The screen. Finished blocks go into `<Static>`, written once to the terminal's main buffer
 * (scrollback is never cleared or rewritten); below them only the live region, the input and the
 * status line are redrawn. Every line is computed by the pure `*_lines` functions at the
 * terminal's width, so ink only places text.
 */
import type { PermissionOption } from '@lich/agent';
import { Box, Static, Text, useStdout } from 'ink';
import {
  memo,
  useCallback,
  useEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
} from 'react';
import { block_lines, gap_before } from './block_lines.js';
import type { TuiController } from './controller.js';
import { after_submit, type EditorState, editor_key, initial_editor } from './editor.js';
import type { Key } from './keys.js';
import { live_lines, live_ticks } from './live_lines.js';
import type { Palette } from './palette.js';
import {
  attachment_lines,
  completion_lines,
  input_lines,
  NOTE_KEYS,
  PERMISSION_KEYS,
  permission_lines,
  picker_lines,
  status_line,
} from './prompt_lines.js';
import { rewind_lines } from './rewind_lines.js';
import type { Block } from './state_types.js';
import type { KeySource } from './terminal_input.js';

/** What the screen is given. */
export interface AppProps {
  controller: TuiController;
  keys: KeySource;
  palette: Palette;
  /** Earlier inputs, oldest first. */
  history?: readonly string[];
  /** Called with each submitted input, to keep it. */
  on_history?: (entry: string) => void;
  /** The work dir's paths, for `@` completion. */
  files?: () => readonly string[];
  /** What a paste becomes before the editor takes it (a dropped picture's path: `@path`). */
  paste_text?: (text: string) => string;
  now?: () => number;
}

/** How long a first Ctrl+C on an empty prompt waits for the second. */
const CTRL_C_WINDOW_MS = 2000;
/**
 * A permission question takes answers only after this long with no key pressed since it
 * appeared: a key typed before (or while typing on) never answers it. Those keys go to the
 * editor instead, so type-ahead is kept.
 */
export const PERMISSION_ARM_MS = 600;
/** The spinner's redraw interval while a run is in flight. */
const TICK_MS = 100;

/**
 * Lines as one `<Text>` each: ink wraps and caches each text by its content, so a frame in which
 * only the last line changed (an answer growing, a key typed) redoes only that line.
 */
const Lines = memo(function Lines(props: { lines: readonly string[] }) {
  return (
    <>
      {props.lines.map((line, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a line is its position in the region
        <Text key={index}>{line === '' ? ' ' : line}</Text>
      ))}
    </>
  );
});

const BlockView = memo(function BlockView(props: {
  block: Block;
  previous: Block | undefined;
  palette: Palette;
  width: number;
}) {
  const lines = block_lines(props.block, props.palette, props.width);
  const gap = gap_before(props.previous, props.block);
  return <Text>{(gap ? '\n' : '') + lines.join('\n')}</Text>;
});

/** The TUI's root component. */
export function App(props: AppProps) {
  const { controller, palette } = props;
  const now = props.now ?? Date.now;
  const store = controller.store;
  const state = useSyncExternalStore(store.subscribe, store.get_state);
  const { stdout } = useStdout();
  const read_size = () => ({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
  const [{ columns, rows }, set_size] = useState(read_size);
  useEffect(() => {
    const on_resize = () => set_size({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
    stdout.on('resize', on_resize);
    return () => {
      stdout.off('resize', on_resize);
    };
  }, [stdout]);
  // One column short of the edge: a line exactly as wide as the terminal wraps early in some.
  const width = Math.max(20, columns - 1);
  const [editor, set_editor] = useState<EditorState>(() => initial_editor(props.history));
  const editor_ref = useRef(editor);
  const [hint, set_hint] = useState<string | null>(null);
  const ctrl_c_at = useRef(0);
  // the permission request on screen, and since when no key was pressed (its arming clock)
  const asking = useRef<{ request_id: string; quiet_since: number } | null>(null);
  const [armed, set_armed] = useState(false);
  const [note, set_note] = useState<EditorState | null>(null);
  const note_ref = useRef<EditorState | null>(null);
  const update_note = useCallback((next: EditorState | null) => {
    note_ref.current = next;
    set_note(next);
  }, []);
  const shown_request = state.permissions[0];
  useEffect(() => {
    if (shown_request === undefined) {
      asking.current = null;
      set_armed(false);
      update_note(null);
      return;
    }
    if (asking.current?.request_id === shown_request.request_id) return;
    asking.current = { request_id: shown_request.request_id, quiet_since: now() };
    set_armed(false);
    update_note(null);
  }, [shown_request, now, update_note]);
  useEffect(() => {
    if (shown_request === undefined || armed) return;
    // re-checked until a quiet spell has passed since the last key
    const timer = setInterval(() => {
      const since = asking.current?.quiet_since ?? now();
      if (now() - since >= PERMISSION_ARM_MS) set_armed(true);
    }, 50);
    return () => clearInterval(timer);
  }, [shown_request, armed, now]);
  const [tick, set_tick] = useState(now());

  const busy = state.turn !== null || state.queued.length > 0;
  // a spinner or a clock on screen needs redrawing as time passes; streamed text does not
  const ticking = live_ticks(state);
  useEffect(() => {
    if (!ticking) return;
    set_tick(now());
    const timer = setInterval(() => set_tick(now()), TICK_MS);
    return () => clearInterval(timer);
  }, [ticking, now]);

  const update_editor = useCallback((next: EditorState) => {
    editor_ref.current = next;
    set_editor(next);
  }, []);

  // an interrupt gives control back: what was queued returns to the input, ahead of what is there
  const give_back = useCallback(
    (texts: string[]) => {
      if (texts.length === 0) return;
      const current = editor_ref.current;
      const text = [...texts, ...(current.text === '' ? [] : [current.text])].join('\n');
      update_editor({ ...current, text, cursor: text.length });
    },
    [update_editor],
  );

  const on_key = useCallback(
    (key: Key) => {
      const current = store.get_state();
      const request = current.permissions[0];
      const editing = editor_ref.current;
      const in_flight = current.turn !== null;
      if (key.ctrl && key.name === 'c') {
        if (in_flight) {
          void controller.interrupt().then(give_back);
          return;
        }
        if (editing.text !== '' || editing.search !== null) {
          update_editor({ ...initial_editor(editing.history), next_paste: editing.next_paste });
          return;
        }
        if (now() - ctrl_c_at.current < CTRL_C_WINDOW_MS) {
          controller.exit(0);
          return;
        }
        ctrl_c_at.current = now();
        set_hint('Press Ctrl+C again to quit');
        setTimeout(() => set_hint(null), CTRL_C_WINDOW_MS);
        return;
      }
      ctrl_c_at.current = 0;
      if (current.picker !== null) {
        const { picker } = current;
        if (key.name === 'up' || key.name === 'down') {
          store.dispatch({ type: 'picker_move', by: key.name === 'up' ? -1 : 1 });
        } else if (key.name === 'enter') {
          controller.pick(picker.sessions[picker.selected]?.session_id ?? null);
        } else if (key.name === 'escape') {
          controller.pick(null);
        }
        return;
      }
      if (current.rewind !== null) {
        const view = current.rewind;
        if (view.working) return;
        if (view.step === 'conflicts') {
          const letter = key.name === 'text' ? key.text?.toLowerCase() : undefined;
          if (letter === 'o') void controller.rewind.resolve('overwrite');
          else if (letter === 'k') void controller.rewind.resolve('keep');
          else if (key.name === 'escape') controller.rewind.cancel();
          return;
        }
        if (key.name === 'up' || key.name === 'down') {
          store.dispatch({ type: 'rewind_move', by: key.name === 'up' ? -1 : 1 });
        } else if (key.name === 'enter') {
          if (view.step === 'prompt') controller.rewind.choose();
          else void controller.rewind.confirm();
        } else if (key.name === 'escape') {
          if (view.step === 'scope') store.dispatch({ type: 'rewind_back' });
          else controller.rewind.cancel();
        }
        return;
      }
      if (key.ctrl && key.name === 'd' && editing.text === '') {
        controller.exit(0);
        return;
      }
      if (request !== undefined) {
        const look = asking.current;
        const quiet =
          look !== null &&
          look.request_id === request.request_id &&
          now() - look.quiet_since >= PERMISSION_ARM_MS;
        if (!quiet) {
          // not armed yet: the key is type-ahead, kept in the editor, and the clock starts again
          if (look !== null) look.quiet_since = now();
          set_armed(false);
          const { state: next } = editor_key(editing, key, { commands: [], files: [] });
          if (next !== editing) update_editor(next);
          return;
        }
        const typing_note = note_ref.current;
        if (typing_note !== null) {
          if (key.name === 'escape') {
            update_note(null);
            return;
          }
          const { state: next, outcome } = editor_key(typing_note, key, {
            commands: [],
            files: [],
          });
          if (outcome === null) {
            update_note(next);
            return;
          }
          update_note(null);
          void controller.answer_permission('reject_once', outcome.text.trim() || undefined);
          return;
        }
        if (key.name === 'escape') {
          void controller.answer_permission('reject_once');
          return;
        }
        const typed = key.name === 'text' ? (key.text?.toLowerCase() ?? '') : '';
        if (NOTE_KEYS.includes(typed) && request.options.includes('reject_once')) {
          update_note(initial_editor([]));
          return;
        }
        const option = PERMISSION_KEYS[typed];
        if (option !== undefined && request.options.includes(option as PermissionOption)) {
          void controller.answer_permission(option as PermissionOption);
        }
        return;
      }
      if (key.name === 'escape' && editing.search === null && in_flight) {
        void controller.interrupt().then(give_back);
        return;
      }
      if (key.ctrl && key.name === 't') {
        store.dispatch({ type: 'toggle_reasoning' });
        return;
      }
      if (key.ctrl && key.name === 'o') {
        store.dispatch({ type: 'expand' });
        return;
      }
      if (key.name === 'tab' && key.shift) {
        void controller.cycle_approval_mode();
        return;
      }
      const sources = {
        commands: controller.commands.map((command) => command.name),
        files: props.files?.() ?? [],
      };
      const typed =
        key.name === 'paste' && props.paste_text !== undefined
          ? { ...key, text: props.paste_text(key.text ?? '') }
          : key;
      const { state: next, outcome } = editor_key(editing, typed, sources);
      if (outcome === null) {
        if (next !== editing) update_editor(next);
        return;
      }
      update_editor(after_submit(editing, outcome.text));
      if (outcome.text.trim() !== '') props.on_history?.(outcome.text);
      void controller.submit(outcome.text, { steer: outcome.steer });
    },
    [
      controller,
      store,
      now,
      update_editor,
      update_note,
      give_back,
      props.files,
      props.on_history,
      props.paste_text,
    ],
  );

  useEffect(() => props.keys.on_key(on_key), [props.keys, on_key]);

  // a rewound prompt comes back into the input, to send again or edit
  useEffect(() => {
    if (state.draft === null) return;
    const text = state.draft;
    const base = initial_editor(editor_ref.current.history);
    update_editor({
      ...base,
      next_paste: editor_ref.current.next_paste,
      text,
      cursor: text.length,
    });
    store.dispatch({ type: 'draft_taken' });
  }, [state.draft, store, update_editor]);

  const request = state.permissions[0];
  const bottom: string[] = [];
  if (state.picker !== null) {
    bottom.push(...picker_lines(state.picker, palette, width, rows - 3));
  } else if (state.rewind !== null) {
    bottom.push(...rewind_lines(state.rewind, palette, width, Math.max(3, rows - 8)));
  } else if (request !== undefined) {
    bottom.push(
      ...permission_lines(request, state.permissions.length, palette, width, {
        armed,
        max_preview_lines: Math.max(3, Math.floor(rows / 2) - 4),
        ...(note === null ? {} : { note }),
      }),
    );
    // type-ahead stays visible, unfocused, below the question
    if (editor.text !== '') bottom.push(...input_lines(editor, palette, width, { focused: false }));
  } else {
    const placeholder = busy
      ? 'type to queue a follow-up · Ctrl+Enter steers'
      : 'ask anything · /help';
    bottom.push(...input_lines(editor, palette, width, { placeholder }));
    const sources = {
      commands: controller.commands.map((command) => command.name),
      files: props.files?.() ?? [],
    };
    bottom.push(...attachment_lines(editor, sources.files, palette, width));
    bottom.push(...completion_lines(editor, sources, controller.commands, palette, width));
  }
  const mode = controller.client.mode;
  const { session, status } = state;
  // the same at every keystroke: not measured again
  const status_text = useMemo(
    () => status_line({ session, status, mode, hint }, palette, width),
    [session, status, mode, hint, palette, width],
  );
  bottom.push(status_text);
  // The live region takes what is left, less a margin: ink must never draw a frame as tall as the
  // terminal (it would then clear the screen and its scrollback at every frame). Recomputed only
  // when what it shows changes, not at each keystroke.
  const max_lines = rows - bottom.length - 4;
  const { turn, permissions, steering, queued, reasoning_expanded, subagents_expanded } = state;
  // biome-ignore lint/correctness/useExhaustiveDependencies: the parts of the state it reads
  const live = useMemo(
    () => live_lines({ state, palette, width, max_lines, now: tick }),
    [
      turn,
      permissions,
      steering,
      queued,
      reasoning_expanded,
      subagents_expanded,
      palette,
      width,
      max_lines,
      tick,
    ],
  );

  return (
    <>
      <Static key={state.generation} items={state.blocks}>
        {(block, index) => (
          <BlockView
            key={block.id}
            block={block}
            previous={state.blocks[index - 1]}
            palette={palette}
            width={width}
          />
        )}
      </Static>
      {state.leaving ? null : (
        <Box flexDirection="column" marginTop={state.blocks.length > 0 || live.length > 0 ? 1 : 0}>
          {live.length > 0 ? (
            <Box flexDirection="column" marginBottom={1}>
              <Lines lines={live} />
            </Box>
          ) : null}
          <Lines lines={bottom} />
        </Box>
      )}
    </>
  );
}
