/**
 * The TUI's one source of styling: every colour and attribute on screen comes from a `Palette`,
 * so `NO_COLOR` is honoured in one place. Under `NO_COLOR` colours become the identity, while
 * attributes that are not colours (bold, dim, italic, underline, inverse) stay, as the
 * convention asks (https://no-color.org: "prevent the addition of ANSI color").
 */

type Paint = (text: string) => string;

/** Styling functions; each wraps text in its SGR codes (or returns it unchanged). */
export interface Palette {
  readonly color: boolean;
  bold: Paint;
  dim: Paint;
  italic: Paint;
  underline: Paint;
  inverse: Paint;
  strike: Paint;
  red: Paint;
  green: Paint;
  yellow: Paint;
  blue: Paint;
  magenta: Paint;
  cyan: Paint;
  gray: Paint;
}

function sgr(open: number, close: number): Paint {
  return (text) => (text === '' ? '' : `\u001B[${open}m${text}\u001B[${close}m`);
}

const identity: Paint = (text) => text;

/**
 * A palette. `color: false` (from `NO_COLOR`, or output that is not a terminal) keeps attributes
 * and drops colours; `plain: true` drops both, for tests that compare text.
 */
export function make_palette(options: { color: boolean; plain?: boolean }): Palette {
  const attribute = (open: number, close: number) => (options.plain ? identity : sgr(open, close));
  const colour = (open: number) => (options.color && !options.plain ? sgr(open, 39) : identity);
  return {
    color: options.color && options.plain !== true,
    bold: attribute(1, 22),
    dim: attribute(2, 22),
    italic: attribute(3, 23),
    underline: attribute(4, 24),
    inverse: attribute(7, 27),
    strike: attribute(9, 29),
    red: colour(31),
    green: colour(32),
    yellow: colour(33),
    blue: colour(34),
    magenta: colour(35),
    cyan: colour(36),
    gray: colour(90),
  };
}

/** Whether colour is wanted: off when `NO_COLOR` is set to anything non-empty, or `TERM=dumb`. */
export function wants_color(env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR === '0') return false;
  return env.TERM !== 'dumb';
}
