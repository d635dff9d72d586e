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
task as context (clamped when larger than the context window allows).

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

const SESSIONS = `Usage: lich sessions <subcommand> [options]

Subcommands:
  list                  the sessions of this folder, newest first, by short id; a session
                        whose subagents ran says how many (+2 subagents); --all lists them
                        too, indented beneath it
  show <id>             the messages of a session
  resume [<id> ["task"]]
                        continue a session (the newest without an id): run a task, or chat
  search <text>         sessions whose messages contain the text
  export <id>           the session as Markdown (to stdout, or --out <file>)
  repair <id>           move a damaged session's bad lines to <file>.corrupt, keep the rest

<id> is the short id list shows (the random end of the full id), a prefix of it of at least 4
characters, the full id or a prefix of it, or the path of the session file.

Options:
  --limit <n>           how many sessions list and search print (default 20; list counts
                        the sessions you started, with their subagents beneath them)
  --all                 list subagent sessions too, each beneath the session that started it
  --out <file>          where export writes
  --json                machine-readable output for list, show and search
  --output-format <f>   text, json or stream-json for resume with a task
  -q, --quiet           no progress (resume)
  -v, --verbose         each model call's timing, and every retry (resume)
  -C, --work-dir <dir>  the folder whose sessions to use
  --config <file>       use this config file instead of <work-dir>/.lich/config.json
  -h, --help            show this help`;

const USAGE = `Usage: lich usage [options]

What the recorded sessions of this folder cost: tokens in (and the share read from the prompt
cache), tokens out and dollars, in total, by day (UTC), by model and by session. A model without
a known price shows "unknown" (add it to "prices" in the config).

Options:
  --all                 every session folder Lich has written to, not only this folder's
  --json                the whole report as JSON
  -C, --work-dir <dir>  the folder whose sessions to read
  --config <file>       use this config file instead of <work-dir>/.lich/config.json
  -h, --help            show this help`;

const REWIND = `Usage: lich rewind [<prompt>] [options]

Puts the newest session of this folder (or --session <id>) back to before prompt <prompt>: the
files as the checkpoint taken before its first change holds them (.lich/checkpoints; .git is never
touched), and the conversation as it was before it was sent. Without <prompt>: the prompts, with
the files each changed (+/- lines); ↺ marks those whose files can be rewound. A file someone
changed since the agent left it is a conflict: nothing is changed and lich exits with 1, unless
--overwrite or --keep says what to do (on a terminal, lich asks). Every rewind takes a
checkpoint first, so --redo undoes it.

Options:
  --files               the files only (the conversation stays)
  --chat                the conversation only (the files stay)
  --dry-run             say what would change, change nothing
  --redo                undo the last rewind
  --overwrite           restore files someone else changed too (a redo brings theirs back)
  --keep                leave files someone else changed as they are, restore the rest
  --session <id>        the session (default: the newest of the folder)
  --json                the list, or what the rewind did, as JSON
  -C, --work-dir <dir>  the folder whose sessions to use
  --config <file>       use this config file instead of <work-dir>/.lich/config.json
  -h, --help            show this help`;

const CHECKPOINTS = `Usage: lich checkpoints [--prune] [options]

What the checkpoint store of this folder (.lich/checkpoints) holds: how many checkpoints, how big,
of which sessions, the settings in force (config key checkpoints), and the newest ones.

Options:
  --prune               remove the checkpoints of closed sessions older than keep_days, then the
                        oldest until the store fits in max_mb, and what only they used
  --dry-run             with --prune: say what would be removed
  --json                machine-readable output
  -C, --work-dir <dir>  the folder whose checkpoints to use
  --config <file>       use this config file instead of <work-dir>/.lich/config.json
  -h, --help            show this help`;

const MCP = `Usage: lich mcp <subcommand> [options]

Edits the mcp_servers of <work-dir>/.lich/config.json.

Subcommands:
  list                              the configured servers, whether they are enabled, and
                                    whether each one starts and how many tools it offers
  add <name> -- <command> [args…]   add a stdio server
  add <name> --url <url>            add an HTTP server
  enable <name>                     connect to the server again
  disable <name>                    keep the server configured without connecting to it
  remove <name>                     delete the server

Options:
  --url <url>             the URL of an HTTP server (add)
  --env <NAME=value>      an environment variable of a stdio server (add; repeatable)
  --header <Name: value>  an HTTP header of an HTTP server (add; repeatable)
  --no-check              list without starting the servers
  --json                  machine-readable output for list
  -C, --work-dir <dir>    the folder whose config to edit
  -h, --help              show this help`;

const INIT = `Usage: lich init [options]

Writes <work-dir>/.lich/config.json (with "$schema", so editors complete the keys) and adds
.lich/sessions/ to .gitignore. An existing config is left alone unless --force.

Options:
  --force               overwrite an existing config
  -C, --work-dir <dir>  the folder to set up
  -h, --help            show this help`;

const CONFIG = `Usage: lich config [get <key> | set <key> <value> | unset <key>] [options]

Without a subcommand, prints the effective config with the source of each value (default, a
file, an environment variable or a flag); secrets are redacted.

Subcommands:
  get <key>             one value, e.g. max_turns or compression.threshold
  set <key> <value>     write a value to the project config (JSON values: 42, true, ["a"])
  unset <key>           remove a key from the project config

Options:
  --global              set/unset in ~/.config/lich/config.json instead
  --json                print JSON
  -C, --work-dir <dir>  the folder whose config to use
  --config <file>       use this config file instead of <work-dir>/.lich/config.json
  -h, --help            show this help`;

const UPDATE = `Usage: lich update [options]

Asks the npm registry for the latest @lich/cli and installs it globally when it is newer.
From a git clone it says to run git pull instead. LICH_NPM_REGISTRY overrides the registry.

Options:
  --check               only say whether an update exists
  -h, --help            show this help`;

const ACP = `Usage: lich acp [options]

Lich as an Agent Client Protocol agent for editors (Zed, JetBrains, Neovim): the editor starts
it and speaks ACP over stdin/stdout; stdout carries ACP only, logs go to stderr. Each session runs
in the folder the editor names, with that folder's config and the MCP servers the editor passes.
In Zed's settings: "agent_servers": { "Lich": { "command": "lich", "args": ["acp"] } }.

Options:
  --provider <kind>     use only this provider: openai_compat, anthropic, ollama, gemini,
                        bedrock
  -m, --model <name>    the model of the first provider
  --base-url <url>      the base URL of the first provider
  --max-turns <n>       model calls allowed per prompt
  --max-budget-usd <n>  dollars the session may spend
  --config <file>       use this config file for every session
  --approval-mode <m>   the mode new sessions start in: default (ask the editor before edits and
                        commands), auto_edit, plan, yolo; default: the config's permissions.mode
  --yolo                the same as --approval-mode yolo
  -C, --work-dir <dir>  the folder session/list shows before a session is open
  --client-terminal     run terminal commands in the editor's terminal when it offers one
                        (outside Lich's OS sandbox; off by default)
  --trust               trust the folders of this run's sessions: their hooks, command shell
                        lines and config files' plugins, MCP servers and permission widenings
                        act (else only folders lich trust named)
  -h, --help            show this help`;

const SANDBOX = `Usage: lich sandbox check [options]

Says what confines terminal and run_tests commands on this machine (bubblewrap on Linux,
sandbox-exec on macOS) and why: each step of the probe, the folder's sandbox config
(mode, network, writable) and what commands will therefore do. Exit code 0 when a sandbox runs
here, 1 when none can.

Options:
  --json                print one JSON document
  -C, --work-dir <dir>  the folder whose config to use
  --config <file>       use this config file instead of <work-dir>/.lich/config.json
  -h, --help            show this help`;

const SKILLS = `Usage: lich skills [list] [options]

Lists the skills found for the folder: each SKILL.md under .lich/skills/, .agents/skills/ and
.claude/skills/ of the folder and its parents up to the repository root (the nearest wins), then
~/.config/lich/skills/ and the folders skills.import names (claude, codex, agents, gemini, or a
path). A SKILL.md that cannot be read is named with why. The model sees each skill's name and
description, and loads the rest with the skill tool when a task needs it.

Options:
  --json                print one JSON document
  -C, --work-dir <dir>  the folder whose skills to list
  --config <file>       use this config file instead of <work-dir>/.lich/config.json
  -h, --help            show this help`;

const TRUST = `Usage: lich trust [folder] [options]

Trusts the folder (default: the work dir) and what is under it: the hooks of its config and of
the files hooks.import names (.claude/settings.json, .codex/hooks.json), the shell lines of its
custom commands and its skills' allowed-tools may then act, and so may what its
.lich/config.json sets that runs code or widens what runs without asking:
  plugins (other than the built-in gatekeeper), MCP servers that start a command or send
  \${VAR}s (or replace one of yours), permissions.allow rules and a looser permissions.mode
  (auto_edit, yolo), a sandbox turned off or widened (network, writable, env_passthrough,
  allow_unix_sockets, allow_read, max_processes), env_passthrough, a higher budget, prices, and
  providers whose base_url is not this machine (your API keys would go there).
Until a folder is trusted none of these act (one warning lists them); what only takes power away
(deny and ask rules, a stricter mode or sandbox, a lower budget) and every other key still apply,
as do your own config, the environment and flags. On a terminal lich asks once, the first time
such a folder is opened, and keeps the answer in ~/.config/lich/trusted_folders.json. Off a
terminal (lich serve, acp, gateways) it stays untrusted unless --trust is given. Says what the
folder ships.

Options:
  -C, --work-dir <dir>  the folder (the same as giving it)
  --config <file>       use this config file instead of <work-dir>/.lich/config.json
  -h, --help            show this help`;

const UNTRUST = `Usage: lich untrust [folder] [options]

Keeps the folder (default: the work dir) untrusted: nothing it ships runs on its own (hooks,
command shell lines, skills' allowed-tools, its config file's plugins, MCP servers and permission
and sandbox widenings; see lich trust --help), and lich stops asking. Its skills are still listed.

Options:
  -C, --work-dir <dir>  the folder (the same as giving it)
  --config <file>       use this config file instead of <work-dir>/.lich/config.json
  -h, --help            show this help`;

const DB = `Usage: lich db migrate [--database-url <url>]

Creates or updates the tables a PostgreSQL store needs (gateways on several nodes, lich serve
--store): runs each migration shipped with @lich/store-postgres that the database lacks, in its
own transaction. Running it again changes nothing; nodes may run it at once.

Options:
  --database-url <url>  postgres://user:password@host:5432/database (default: LICH_DATABASE_URL)
  -h, --help            show this help

Needs @lich/store-postgres installed next to lich (npm i -g @lich/store-postgres).`;

const COMPLETION = `Usage: lich completion bash|zsh|fish

Prints a completion script for the shell: commands, their subcommands and the options.
  bash: eval "$(lich completion bash)"   (in ~/.bashrc)
  zsh:  eval "$(lich completion zsh)"    (in ~/.zshrc, after compinit)
  fish: lich completion fish > ~/.config/fish/completions/lich.fish

Options:
  -h, --help            show this help`;

const HELP = `Usage: lich help [command]

Shows the help of a command, or of lich.`;

const GATEWAY = `Usage: lich gateway <platform> [options]
       lich gateway pair <platform> <code>

Runs a chat bot over this folder's agent: <platform> is telegram, discord, twitch or webhook.
Each platform is its own package (@lich/gateway-<platform>), loaded when asked for; lich says how
to install one that is missing. SIGINT/SIGTERM stop taking messages, let the runs in flight
finish, then exit.

  pair <platform> <code>      let in the user a pairing code was given to (pair <platform>
                              alone lists who waits and who is in)

Run 'lich gateway <platform> --help' for the options of a platform.`;

const TEXTS: Record<CommandName | 'main', string> = {
  main: MAIN,
  run: RUN,
  chat: CHAT,
  tui: TUI,
  serve: SERVE,
  sessions: SESSIONS,
  usage: USAGE,
  rewind: REWIND,
  checkpoints: CHECKPOINTS,
  mcp: MCP,
  init: INIT,
  config: CONFIG,
  update: UPDATE,
  acp: ACP,
  gateway: GATEWAY,
  sandbox: SANDBOX,
  skills: SKILLS,
  trust: TRUST,
  untrust: UNTRUST,
  db: DB,
  completion: COMPLETION,
  help: HELP,
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
