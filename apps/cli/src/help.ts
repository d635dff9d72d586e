import { MORE_HELP } from './help_more.js';

/** The commands `lich` knows, in the order `--help` lists them. */
export const COMMANDS = [
  'run',
  'chat',
  'tui',
  'serve',
  'sessions',
  'usage',
  'rewind',
  'checkpoints',
  'mcp',
  'init',
  'config',
  'update',
  'acp',
  'gateway',
  'sandbox',
  'skills',
  'trust',
  'untrust',
  'db',
  'completion',
  'help',
] as const;

/** A word `lich` takes as its command, one of `COMMANDS`. */
export type CommandName = (typeof COMMANDS)[number];

const AGENT_FLAGS = `  --provider <kind>     use only this provider: openai_compat, anthropic, ollama, gemini,
                        bedrock
  -m, --model <name>    the model of the first provider
  --base-url <url>      the base URL of the first provider
  -C, --work-dir <dir>  the folder the agent works in (default: the current folder)
  --max-turns <n>       model calls allowed for the task
  --max-budget-usd <n>  dollars the session may spend; a model call that could cross it is not made
  --config <file>       use this config file instead of <work-dir>/.lich/config.json
  --no-session          do not record a session
  --show-reasoning      print the model's reasoning on stderr
  --approval-mode <m>   default (edits and commands ask), auto_edit (edits run), plan (read
                        only until you approve a plan), yolo (all run)
  --yolo                the same as --approval-mode yolo
  --system-prompt <text>          replace the system prompt (AGENTS.md is still added)
  --append-system-prompt <text>   add text to the end of the system prompt
  --allowed-tools <names>         only these tools (comma-separated; * matches any run)
  --disallowed-tools <names>      never these tools (same patterns; wins over allowed)
  --trust               trust the folder for this run: its hooks, command shell lines and its
                        config file's plugins, MCP servers and permission widenings act
  -h, --help            show this help`;

/** `-q` and `-v`, of the commands that print a run's progress (`lich "task"`, `chat`). */
const LOG_FLAGS = `  -q, --quiet           no progress on stderr (warnings and errors still)
  -v, --verbose         each model call's provider, time and tokens, and every retry`;

/** The options of a one-shot run (`lich "task"`, `lich run`). */
const RUN_FLAGS = `  -p, --print           run the task and print the answer (the one-shot; never interactive)
  --output-format <f>   text (the answer), json (one document), stream-json (one event per line)
  --json                the same as --output-format json
  -c, --continue        continue the newest session of the work dir
  -i, --image <file>    send a picture (PNG, JPEG, GIF, WebP; repeatable); @shot.png in the
                        task attaches one too`;

const MAIN = `lich — an AI agent harness at your terminal

Usage:
  lich "task"                 run one task in the current folder; the answer goes to stdout
  lich <command> [options]

Commands:
  run "task"                  the same as lich "task"
  chat                        a line-by-line conversation over one session
  tui [--continue | --resume [id]] [--connect]
                              the full-screen conversation (what lich alone opens on a terminal)
  serve [--stdio]             Lich as a backend: JSON-RPC over a loopback WebSocket or stdio
  sessions list|show|resume|search|export|repair
                              the recorded sessions of this folder
  usage [--all] [--json]      tokens and dollars by day, model and session, with the cache hit ratio
  rewind [<prompt>]           put the files and the conversation back to before a prompt
  checkpoints [--prune]       what the checkpoints of this folder hold, and how big
  mcp list|add|enable|disable|remove
                              the MCP servers in this folder's config
  init                        write .lich/config.json and ignore .lich/sessions/ in git
  config [get|set|unset]      the effective config and where each value comes from
  update                      install the latest @lich/cli from npm
  acp                         Lich as an Agent Client Protocol agent for editors (stdio)
  gateway <platform>          run a chat bot: telegram, discord, twitch or webhook
  sandbox check               whether commands run sandboxed here, and why
  skills [list]               the skills (SKILL.md) found for this folder, and from where
  trust [folder]              let what the folder ships run: its hooks, command shell lines
  untrust [folder]            run nothing the folder ships, and stop asking
  db migrate                  create or update the tables of a PostgreSQL store
  completion bash|zsh|fish    print a shell completion script
  help [command]              help for a command

Options:
${RUN_FLAGS}
${LOG_FLAGS}
${AGENT_FLAGS}
  -V, --version         print the version

Piped stdin is added to the task as context. On a terminal, lich asks before it edits a file or
runs a command (y: once, a: always this session, n: no); off a terminal it runs them as it always
has (yolo) unless the config or a flag sets a mode. Exit codes: 0 success, 1 model or provider
failure, 2 usage or config error, 130 aborted (Ctrl+C), 143 terminated (SIGTERM).
Run 'lich <command> --help' for the options of a command.`;

const RUN = `Usage: lich "task" [options]
       lich run "task" [options]

Runs one task. The answer streams to stdout and nothing else does; progress (a spinner, one line
per tool call, the reasoning with --show-reasoning) goes to stderr. Piped stdin is added to the
task as context (clamped when larger than the context window allows). A task that names a slash
command runs it, as lich chat does: lich "/review src/app.ts" sends a custom command's prompt.

Options:
${RUN_FLAGS}
${LOG_FLAGS}
${AGENT_FLAGS}

--json prints one document: answer, stopped_reason, error, turns_used, usage, provider, model,
session_path, tool_calls. stream-json prints one JSON object per line, each with a type:
run_start, turn_start, text_delta, reasoning_delta, turn_end, usage, tool_start, tool_end, retry,
failover, compress, budget_exhausted, run_end (the --json fields). A pipe on stdin that stays
silent for 2 s (LICH_STDIN_WAIT_MS) is left alone, with a warning; binary stdin is described, not
pasted.

Exit codes: 0 success, 1 model or provider failure (or no answer within the turns), 2 usage or
config error, 130 aborted, 143 terminated.`;

const CHAT = `Usage: lich chat [options]

A conversation, one line per message, over one session: the history is kept across turns. A
message typed while an answer is written is queued and sent after it; /steer <text> puts text
into the answer being written. Slash commands: /help, /clear, /model [provider/model], /compact,
/rewind (pick a prompt to go back to; /rewind <n> [--files|--chat] [--dry-run], /rewind --redo),
/steer <text>, /exit or /quit (an unknown one is an error; //text sends /text). Ctrl+C aborts the
answer being written and puts queued messages back at the prompt (through a pipe it ends the
chat). Works over a pipe.

Options:
  --resume <id>         continue a recorded session (its short id, full id, path, or a prefix)
  -c, --continue        continue the newest session of the work dir
${LOG_FLAGS}
${AGENT_FLAGS}`;

const TUI = `Usage: lich tui [options] ["task"]
       lich                  (alone, on a terminal)

The full-screen conversation over one session: the answer streams with markdown, reasoning
dimmed, one line per tool call, permission requests answered with one key. Enter sends (while a
run is in flight it queues a follow-up; Ctrl+Enter or /steer steers the run), Esc or Ctrl+C
aborts the run, Ctrl+C twice on an empty prompt leaves; /help lists the keys and commands.
The input history is kept per folder in .lich/tui_history.jsonl. With a task, the TUI opens and
runs it at once.

Options:
  -c, --continue        open this folder's most recent session
  --resume [id]         open a recorded session (an id or a unique part of one); without an id,
                        choose from a list
  --connect             run the agent in a \`lich serve --stdio\` child process, restarted if it
                        dies, and talk to it over the serve protocol
${AGENT_FLAGS.split('\n')
  // the TUI always shows reasoning (Ctrl+T folds it)
  .filter((line) => !line.includes('--show-reasoning'))
  .join('\n')}`;

const SERVE = `Usage: lich serve [options]
       lich serve --stdio [options]
       lich serve --print-token

Runs Lich as a backend for apps, editors and \`lich tui --connect\`: JSON-RPC 2.0, one object
per line (see the @lich/serve protocol). By default a WebSocket on 127.0.0.1 and ::1; the URL and a
fresh token go to $XDG_RUNTIME_DIR/lich/serve.json (else ~/.local/state/lich/serve.json), mode
0600. Clients send the token as Authorization: Bearer or in initialize. Stops on Ctrl+C.

Options:
  --stdio               serve over stdin/stdout for the parent process (no token); logs go to
                        stderr
  --port <n>            the port to listen on (default: a free one)
  --host <address>      listen on another address; anything but loopback needs --allow-remote
  --allow-remote        allow a --host reachable from the network (prints a warning)
  --allow-origin <url>  a browser origin allowed to connect (repeatable); others are refused
  --print-token         print the running server's token (and its URL on stderr)
  --store <url>         keep sessions in PostgreSQL (postgres://…, after lich db migrate), so
                        the server can restart or move without losing a session; needs
                        @lich/store-postgres
${AGENT_FLAGS}`;

const TEXTS: Record<CommandName | 'main', string> = {
  main: MAIN,
  run: RUN,
  chat: CHAT,
  tui: TUI,
  serve: SERVE,
  ...MORE_HELP,
};

/** The help text of a command (or of lich itself for `main`). */
export function help_text(command: CommandName | 'main'): string {
  return TEXTS[command];
}

/** The first lines of a command's help: its usage. */
export function usage_line(command: CommandName | 'main'): string {
  const text = TEXTS[command];
  if (command === 'main') return 'Usage: lich "task" | lich <command> [options]   (lich --help)';
  const end = text.indexOf('\n\n');
  return `${end === -1 ? text : text.slice(0, end)}   (lich ${command} --help)`;
}
