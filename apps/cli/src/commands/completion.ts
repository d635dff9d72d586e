import {
  AGENT_OPTIONS,
  CONTINUE_OPTIONS,
  type OptionTable,
  OUTPUT_OPTIONS,
  parse_command_args,
} from '../args.js';
import type { Command } from '../context.js';
import { EXIT } from '../exit_codes.js';
import { COMMANDS, help_text } from '../help.js';
import { UsageError } from '../usage_error.js';

/** The shells `lich completion` writes a script for. */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;

/** The words that may follow each command. */
const SUBCOMMANDS: Readonly<Record<string, readonly string[]>> = {
  sessions: ['list', 'show', 'resume', 'search', 'export', 'repair'],
  rewind: ['--files', '--chat', '--dry-run', '--redo', '--overwrite', '--keep', '--session'],
  checkpoints: ['--prune', '--dry-run', '--json'],
  mcp: ['list', 'add', 'enable', 'disable', 'remove'],
  config: ['get', 'set', 'unset'],
  sandbox: ['check'],
  db: ['migrate'],
  gateway: ['telegram', 'discord', 'twitch', 'webhook', 'pair'],
  completion: SHELLS,
  help: COMMANDS,
};

const RUN_TABLE: OptionTable = {
  ...AGENT_OPTIONS,
  ...OUTPUT_OPTIONS,
  ...CONTINUE_OPTIONS,
  print: { type: 'boolean', short: 'p' },
};

/** The options of a one-shot run, as `--name` and `-x` words; only those taking a value. */
function option_words(taking_value = false): string[] {
  const words: string[] = [];
  for (const [name, option] of Object.entries(RUN_TABLE)) {
    if (taking_value && option.type !== 'string') continue;
    words.push(`--${name}`);
    if (option.short !== undefined) words.push(`-${option.short}`);
  }
  return taking_value ? words : [...words, '--version', '-V'];
}

function bash_script(): string {
  const cases = Object.entries(SUBCOMMANDS)
    .map(([command, words]) => `    ${command}) words="${words.join(' ')}" ;;`)
    .join('\n');
  return `# lich completion for bash: eval "$(lich completion bash)" (e.g. in ~/.bashrc)
_lich() {
  local current=\${COMP_WORDS[COMP_CWORD]} command="" word skip=0
  local takes_value=" ${option_words(true).join(' ')} "
  for word in "\${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
    if (( skip )); then skip=0; continue; fi
    case "$takes_value" in *" $word "*) skip=1; continue ;; esac
    case "$word" in -*) ;; *) command=$word; break ;; esac
  done
  local words
  if [[ "$current" == -* ]]; then
    words="${option_words().join(' ')}"
  elif [[ -z "$command" ]]; then
    words="${COMMANDS.join(' ')}"
  else
    case "$command" in
${cases}
    *) words="" ;;
    esac
  fi
  COMPREPLY=($(compgen -W "$words" -- "$current"))
}
complete -o default -F _lich lich
`;
}

function zsh_script(): string {
  const cases = Object.entries(SUBCOMMANDS)
    .map(([command, words]) => `    ${command}) compadd -- ${words.join(' ')} ;;`)
    .join('\n');
  return `#compdef lich
# lich completion for zsh: eval "$(lich completion zsh)" (e.g. in ~/.zshrc, after compinit)
_lich() {
  local command="" word skip=0
  local takes_value=" ${option_words(true).join(' ')} "
  for word in "\${(@)words[2,CURRENT-1]}"; do
    if (( skip )); then skip=0; continue; fi
    [[ "$takes_value" == *" $word "* ]] && { skip=1; continue; }
    [[ "$word" == -* ]] || { command=$word; break; }
  done
  if [[ "\${words[CURRENT]}" == -* ]]; then
    compadd -- ${option_words().join(' ')}
  elif [[ -z "$command" ]]; then
    compadd -- ${COMMANDS.join(' ')}
  else
    case "$command" in
${cases}
    *) _files ;;
    esac
  fi
}
compdef _lich lich
`;
}

function fish_script(): string {
  const lines = [
    '# lich completion for fish: lich completion fish > ~/.config/fish/completions/lich.fish',
    'complete -c lich -f',
    `complete -c lich -n __fish_use_subcommand -a '${COMMANDS.join(' ')}'`,
  ];
  for (const [command, words] of Object.entries(SUBCOMMANDS)) {
    lines.push(
      `complete -c lich -n '__fish_seen_subcommand_from ${command}' -a '${words.join(' ')}'`,
    );
  }
  for (const word of option_words()) {
    lines.push(
      word.startsWith('--')
        ? `complete -c lich -l ${word.slice(2)}`
        : `complete -c lich -s ${word.slice(1)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** `lich completion bash|zsh|fish`: prints the shell's completion script on stdout. */
export const command_completion: Command = async (context) => {
  const { values, positionals } = parse_command_args('completion', context.argv, {
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    context.io.stdout.write(`${help_text('completion')}\n`);
    return EXIT.OK;
  }
  const shell = positionals[0];
  if (shell === undefined || !(SHELLS as readonly string[]).includes(shell)) {
    throw new UsageError(
      shell === undefined
        ? `completion needs a shell: ${SHELLS.join(', ')}`
        : `no completion for '${shell}': ${SHELLS.join(', ')}`,
      'completion',
      shell === undefined ? undefined : { word: shell, candidates: SHELLS },
    );
  }
  const script = shell === 'bash' ? bash_script() : shell === 'zsh' ? zsh_script() : fish_script();
  context.io.stdout.write(script);
  return EXIT.OK;
};
