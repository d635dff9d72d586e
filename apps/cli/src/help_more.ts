/**
 * The help of the commands that manage Lich rather than run a task (sessions, checkpoints, MCP
 * servers, config, the editor and chat surfaces, …): `help.ts` lists them with the others.
 */

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

/** Their help texts, by command. */
export const MORE_HELP = {
  sessions: SESSIONS,
  usage: USAGE,
  rewind: REWIND,
  checkpoints: CHECKPOINTS,
  mcp: MCP,
  init: INIT,
  config: CONFIG,
  update: UPDATE,
  acp: ACP,
  sandbox: SANDBOX,
  skills: SKILLS,
  trust: TRUST,
  untrust: UNTRUST,
  db: DB,
  completion: COMPLETION,
  help: HELP,
  gateway: GATEWAY,
} as const;
