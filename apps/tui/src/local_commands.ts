/** What the TUI handles itself, and the keys it knows, as `/help` lists them. */
import type { CommandInfo } from '@lich/agent';

/** Commands the TUI handles itself; every other slash command goes to the host. */
export const LOCAL_COMMANDS: readonly CommandInfo[] = [
  { name: 'clear', description: 'start a new conversation (the screen above stays)' },
  { name: 'help', description: 'list commands and keys' },
  { name: 'steer', description: 'send text into the run in flight', argument_hint: '<text>' },
  { name: 'quit', description: 'leave' },
  { name: 'exit', description: 'leave' },
];

/** The keys, as `/help` lists them. */
export const KEYS_HELP = [
  'Enter send (queued as a follow-up while a run is in flight) · Ctrl+Enter or /steer steer the run',
  'Shift+Enter, Alt+Enter or \\ then Enter: new line · ↑/↓ history · Ctrl+R search history',
  'Tab complete /commands and @files · Esc or Ctrl+C abort the run · Ctrl+C twice on an empty prompt: quit',
  'Ctrl+T reasoning in full or folded · Ctrl+O expand the last tool output, diff, reasoning or subagents · Shift+Tab approval mode',
  '/rewind: go back to before a prompt (↺ marks prompts whose files can be rewound); /rewind --redo undoes it',
].join('\n');
