/**
 * Terminal input bytes to keys. The TUI reads stdin itself (not through ink) so that it controls
 * bracketed paste (a paste arrives as one `paste` key, newlines and all, and never submits),
 * tells Enter from Shift/Alt/Ctrl+Enter in the encodings terminals use (CSI u, xterm's
 * modifyOtherKeys, ESC CR, LF), and keeps an escape sequence split across reads whole.
 */

/** One key press (or one paste). */
export interface Key {
  /**
   * `text` (printable characters typed), `paste`, `enter`, `backspace`, `delete`, `tab`,
   * `escape`, `up`, `down`, `left`, `right`, `home`, `end`, `pageup`, `pagedown`, or a single
   * lower-case letter or character with `ctrl` or `meta` set (Ctrl+C is `{ name: 'c', ctrl }`).
   */
  name: string;
  /** The characters, for `text` and `paste`. */
  text?: string;
  ctrl: boolean;
  meta: boolean;
  shift: boolean;
}

const PASTE_START = '\u001B[200~';
const PASTE_END = '\u001B[201~';

function key(name: string, modifiers: Partial<Key> = {}): Key {
  return { name, ctrl: false, meta: false, shift: false, ...modifiers };
}

/** The modifiers of an xterm parameter (1 + shift 1, alt 2, ctrl 4). */
function modifiers(parameter: number | undefined): Partial<Key> {
  const bits = (parameter ?? 1) - 1;
  return { shift: (bits & 1) !== 0, meta: (bits & 2) !== 0, ctrl: (bits & 4) !== 0 };
}

const CSI_LETTERS: Record<string, string> = {
  A: 'up',
  B: 'down',
  C: 'right',
  D: 'left',
  H: 'home',
  F: 'end',
};

const CSI_TILDE: Record<number, string> = {
  1: 'home',
  2: 'insert',
  3: 'delete',
  4: 'end',
  5: 'pageup',
  6: 'pagedown',
  7: 'home',
  8: 'end',
};

/** A key from a Unicode code point, as CSI u and modifyOtherKeys report them. */
function code_point_key(code: number, mods: Partial<Key>): Key {
  if (code === 13) return key('enter', mods);
  if (code === 9) return key('tab', mods);
  if (code === 27) return key('escape', mods);
  if (code === 127 || code === 8) return key('backspace', mods);
  const char = String.fromCodePoint(code);
  if (mods.ctrl || mods.meta) return key(char.toLowerCase(), mods);
  return key('text', { ...mods, text: char });
}

/** Parses one complete CSI sequence body (after `ESC [`). */
function parse_csi(body: string): Key | null {
  const final = body.at(-1) ?? '';
  const parameters = body
    .slice(0, -1)
    .split(';')
    .map((part) => (part === '' ? undefined : Number(part)));
  if (final in CSI_LETTERS) return key(CSI_LETTERS[final]!, modifiers(parameters[1]));
  if (final === 'Z') return key('tab', { shift: true });
  if (final === 'u' && parameters[0] !== undefined) {
    return code_point_key(parameters[0], modifiers(parameters[1]));
  }
  if (final === '~') {
    // modifyOtherKeys: ESC [ 27 ; mods ; code ~
    if (parameters[0] === 27 && parameters[2] !== undefined) {
      return code_point_key(parameters[2], modifiers(parameters[1]));
    }
    const name = CSI_TILDE[parameters[0] ?? 0];
    return name === undefined ? null : key(name, modifiers(parameters[1]));
  }
  return null;
}

/** A stateful reader of terminal input: feed it what stdin gives, take the keys. */
export interface KeyParser {
  /** The keys in `data`; an incomplete escape sequence at its end waits for the next read. */
  feed(data: string): Key[];
  /** Whether a lone ESC (or a sequence cut short) is waiting. */
  pending(): boolean;
  /** Gives what waits as keys (a lone ESC is the Escape key). */
  flush(): Key[];
}

/**
 * A key parser. Contract: never throws; every byte becomes part of some key (unknown escape
 * sequences are dropped whole, not typed); text between paste markers is one `paste` key, however
 * many reads it spans; a read of several lines with no markers (a terminal without bracketed
 * paste) is taken as a paste, so its newlines do not submit.
 */
export function create_key_parser(): KeyParser {
  let buffer = '';
  let paste: string | null = null;

  const parse = (final: boolean): Key[] => {
    const keys: Key[] = [];
    let text = '';
    const push_text = () => {
      if (text !== '') keys.push(key('text', { text }));
      text = '';
    };
    let index = 0;
    while (index < buffer.length) {
      if (paste !== null) {
        const end = buffer.indexOf(PASTE_END, index);
        if (end === -1) {
          // keep a possible start of the end marker for the next read
          const keep = final ? 0 : Math.min(PASTE_END.length - 1, buffer.length - index);
          paste += buffer.slice(index, buffer.length - keep);
          index = buffer.length - keep;
          break;
        }
        keys.push(
          key('paste', { text: (paste + buffer.slice(index, end)).replace(/\r\n?/g, '\n') }),
        );
        paste = null;
        index = end + PASTE_END.length;
        continue;
      }
      const char = buffer[index]!;
      if (char === '\u001B') {
        push_text();
        const next = buffer[index + 1];
        if (next === undefined) {
          if (!final) break;
          keys.push(key('escape'));
          index += 1;
          continue;
        }
        if (next === '[' || next === 'O') {
          let end = index + 2;
          while (end < buffer.length && !/[@-~]/.test(buffer[end]!)) end += 1;
          if (next === '[' && buffer[index + 2] === '[') end += 1; // ESC [ [ A (linux console F-keys)
          if (end >= buffer.length) {
            if (!final) break;
            index = buffer.length;
            continue;
          }
          const body = buffer.slice(index + 2, end + 1);
          index = end + 1;
          if (`\u001B[${body}` === PASTE_START) {
            paste = '';
            continue;
          }
          const parsed = next === 'O' ? parse_csi(`1;1${body}`) : parse_csi(body);
          if (parsed) keys.push(parsed);
          continue;
        }
        index += 2;
        if (next === '\u001B') {
          keys.push(key('escape'));
          index -= 1;
        } else if (next === '\r' || next === '\n') keys.push(key('enter', { meta: true }));
        else if (next === '\u007F' || next === '\b') keys.push(key('backspace', { meta: true }));
        else keys.push(key(next.toLowerCase(), { meta: true, shift: next !== next.toLowerCase() }));
        continue;
      }
      index += 1;
      if (char === '\r') {
        push_text();
        keys.push(key('enter'));
      } else if (char === '\n') {
        push_text();
        keys.push(key('enter', { shift: true }));
      } else if (char === '\u007F' || char === '\b') {
        push_text();
        keys.push(key('backspace'));
      } else if (char === '\t') {
        push_text();
        keys.push(key('tab'));
      } else if (char < ' ') {
        push_text();
        keys.push(key(String.fromCharCode(char.charCodeAt(0) + 96), { ctrl: true }));
      } else {
        text += char;
      }
    }
    push_text();
    buffer = buffer.slice(index);
    return keys;
  };

  const as_paste = (data: string): boolean => {
    // Several lines in one read, with no escape sequences: pasted without bracketed paste.
    if (paste !== null || buffer !== '' || data.includes('\u001B')) return false;
    const body = data.replace(/[\r\n]+$/, '');
    return /[\r\n]/.test(body) && /[^\r\n]/.test(body);
  };

  return {
    feed(data) {
      if (as_paste(data)) return [key('paste', { text: data.replace(/\r\n?/g, '\n') })];
      buffer += data;
      return parse(false);
    },
    pending: () => buffer !== '' && paste === null,
    flush: () => parse(true),
  };
}
