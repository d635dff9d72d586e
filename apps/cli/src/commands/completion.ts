import { parse_command_args } from '../args.js';
import type { Command } from '../context.js';
import { EXIT } from '../exit_codes.js';
import { help_text } from '../help.js';
import { UsageError } from '../usage_error.js';

/** The shells `lich completion` writes a script for. */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;

/**
 * Each script asks `lich __complete` at every Tab, with the words typed so far: the candidates
 * come from the commands' own help (per command options, allowed values, session ids), and
 * `:files` / `:dirs` hand the word to the shell's own path completion.
 */
function bash_script(): string {
  return `# lich completion for bash: eval "$(lich completion bash)" (e.g. in ~/.bashrc)
_lich() {
  local current=\${COMP_WORDS[COMP_CWORD]} out
  out=$(command lich __complete "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
  case "$out" in
    :files) COMPREPLY=($(compgen -f -- "$current")) ;;
    :dirs) COMPREPLY=($(compgen -d -- "$current")) ;;
    *) local IFS=$'\\n'; COMPREPLY=($(compgen -W "$out" -- "$current")) ;;
  esac
}
complete -o default -o filenames -F _lich lich
`;
}

function zsh_script(): string {
  return `#compdef lich
# lich completion for zsh: eval "$(lich completion zsh)" (e.g. in ~/.zshrc, after compinit)
_lich() {
  local -a out
  out=("\${(@f)$(command lich __complete "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  case "\${out[1]}" in
    :files) _files ;;
    :dirs) _files -/ ;;
    *) compadd -- "\${(@)out}" ;;
  esac
}
compdef _lich lich
`;
}

function fish_script(): string {
  return `# lich completion for fish: lich completion fish > ~/.config/fish/completions/lich.fish
function __lich_complete
  set -l words (commandline -opc)[2..-1] (commandline -ct)
  set -l out (env LICH_COMPLETE_DESCRIPTIONS=1 lich __complete $words 2>/dev/null)
  switch "$out[1]"
    case ':files'
      __fish_complete_path (commandline -ct)
    case ':dirs'
      __fish_complete_directories (commandline -ct)
    case '*'
      printf '%s\\n' $out
  end
end
complete -c lich -f -a '(__lich_complete)'
`;
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
