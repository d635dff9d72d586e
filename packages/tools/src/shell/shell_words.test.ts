import { describe, expect, it } from 'vitest';
import { split_commands, strip_prefix } from './shell_commands.js';
import {
  HOME_MARK,
  parse_shell,
  SPLIT_VARIABLE_OPEN,
  UNKNOWN_MARK,
  VARIABLE_CLOSE,
  VARIABLE_OPEN,
} from './shell_words.js';

const words = (text: string) =>
  parse_shell(text)
    .tokens.filter((token) => token.kind === 'word')
    .map((token) => token.value);

describe('parse_shell', () => {
  it('removes quotes and keeps quoted operators inside words', () => {
    expect(words(`echo "a; b" 'c | d' e\\ f`)).toEqual(['echo', 'a; b', 'c | d', 'e f']);
    expect(words(`echo $'x\\'y'`)).toEqual(['echo', "x'y"]);
  });

  it('splits operators, longest first, and drops descriptor numbers of redirections', () => {
    const { tokens } = parse_shell('a&&b||c|&d;e 2>&1 >>f');
    expect(tokens.map((token) => token.value)).toEqual([
      'a',
      '&&',
      'b',
      '||',
      'c',
      '|&',
      'd',
      ';',
      'e',
      '>&',
      '1',
      '>>',
      'f',
    ]);
  });

  it('marks the home directory only where bash would expand it', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell syntax, not a template
    expect(words('ls ~ ~/x $HOME "${HOME}" \'$HOME\' "~" a~')).toEqual([
      'ls',
      HOME_MARK,
      `${HOME_MARK}/x`,
      HOME_MARK,
      HOME_MARK,
      '$HOME',
      '~',
      'a~',
    ]);
  });

  it('collects the commands nested in substitutions', () => {
    const parsed = parse_shell('echo $(date) "`whoami`" <(ls -l) $((1+2))');
    expect(parsed.substitutions).toEqual(['date', 'whoami', 'ls -l', '(1+2)']);
    expect(words('echo $(date)')).toEqual(['echo', UNKNOWN_MARK]);
  });

  it('marks plain variables with their names (split or not), other expansions as unknown', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell syntax, not a template
    expect(words('rm $x "${y}/z" ${w:-a} $1 \'$q\' $?')).toEqual([
      'rm',
      `${SPLIT_VARIABLE_OPEN}x${VARIABLE_CLOSE}`,
      `${VARIABLE_OPEN}y${VARIABLE_CLOSE}/z`,
      UNKNOWN_MARK,
      `${SPLIT_VARIABLE_OPEN}1${VARIABLE_CLOSE}`,
      '$q',
      UNKNOWN_MARK,
    ]);
  });

  it('decodes ANSI-C quotes and expands braces as bash does', () => {
    expect(words("$'\\x72\\x6d' $'a\\tb\\101\\u00e9' $'x\\'y'")).toEqual(['rm', 'a\tbAé', "x'y"]);
    expect(words('rm -rf {/,} /{,} a{b,c{d,e}}f {1..3} "{a,b}" {x} {')).toEqual([
      'rm',
      '-rf',
      '/',
      '/',
      '/',
      'abf',
      'acdf',
      'acef',
      '1',
      '2',
      '3',
      '{a,b}',
      '{x}',
      '{',
    ]);
  });

  it('hands a here-doc body to its delimiter', () => {
    const { tokens } = parse_shell("bash <<'EOF'\nrm -rf /\nEOF\necho done");
    expect(tokens[2]).toEqual({ kind: 'word', value: 'EOF', body: 'rm -rf /' });
  });

  it('skips comments and here-doc bodies', () => {
    expect(words('ls # rm -rf /')).toEqual(['ls']);
    expect(words('cat <<-EOF\n\trm -rf /\n\tEOF\necho done')).toEqual([
      'cat',
      'EOF',
      'echo',
      'done',
    ]);
  });

  it('never throws on unterminated input', () => {
    for (const text of ['"abc', "'abc", '$(abc', '`abc', '${abc', 'a\\', '<<EOF\nno end']) {
      expect(() => parse_shell(text)).not.toThrow();
    }
  });
});

describe('split_commands and strip_prefix', () => {
  it('finds the command behind assignments, keywords and wrappers', () => {
    const commands = split_commands(
      parse_shell('if X=1 sudo -u me env -i A=b timeout -s KILL 5 nice -n 3 rm -r x; then :; fi')
        .tokens,
    );
    expect(strip_prefix(commands[0]!.words)).toEqual(['rm', '-r', 'x']);
  });

  it('sets redirections apart from words', () => {
    const [command] = split_commands(parse_shell('cat a > out 2>>err').tokens);
    expect(command?.words).toEqual(['cat', 'a']);
    expect(command?.redirects).toEqual([
      { operator: '>', target: 'out' },
      { operator: '>>', target: 'err' },
    ]);
  });
});
