/**
 * The text of a bash ANSI-C quoted string (`$'…'`, the part between the quotes), escapes decoded
 * as bash decodes them: `\a \b \e \E \f \n \r \t \v \\ \' \" \?`, octal `\nnn`, hex `\xHH`,
 * Unicode `\uHHHH` and `\UHHHHHHHH`, control characters `\cX`. An unknown escape stays as written,
 * backslash and all, as in bash.
 *
 * Contract: pure, never throws; bash stops a string at a NUL (`\0`, `\x00`), and so does this.
 */
export function decode_ansi_c(body: string): string {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const char = body[i]!;
    if (char !== '\\' || i + 1 >= body.length) {
      out += char;
      continue;
    }
    const next = body[i + 1]!;
    const simple = SIMPLE[next];
    if (simple !== undefined) {
      out += simple;
      i += 1;
      continue;
    }
    let code: number | undefined;
    let used = 0;
    if (/[0-7]/.test(next)) {
      const digits = /^[0-7]{1,3}/.exec(body.slice(i + 1))![0];
      code = Number.parseInt(digits, 8) & 0xff;
      used = digits.length;
    } else if (next === 'x' || next === 'u' || next === 'U') {
      const most = next === 'x' ? 2 : next === 'u' ? 4 : 8;
      const digits = new RegExp(`^[0-9A-Fa-f]{1,${most}}`).exec(body.slice(i + 2))?.[0];
      if (digits !== undefined) {
        code = Number.parseInt(digits, 16);
        used = digits.length + 1;
      }
    } else if (next === 'c' && i + 2 < body.length) {
      code = body.charCodeAt(i + 2) & 0x1f;
      used = 2;
    }
    if (code === undefined) {
      out += char;
      continue;
    }
    if (code === 0) return out;
    out += code > 0x10ffff ? '\uFFFD' : String.fromCodePoint(code);
    i += used;
  }
  return out;
}

const SIMPLE: { [name: string]: string } = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};
