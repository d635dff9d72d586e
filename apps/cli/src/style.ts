/** Colours for one output stream; every function returns its input unchanged when colour is off. */
export interface Style {
  readonly enabled: boolean;
  dim(text: string): string;
  bold(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

/**
 * Whether to colour `stream`: `FORCE_COLOR` (non-empty, not `0`) turns it on, `NO_COLOR`
 * (any non-empty value, https://no-color.org) or `TERM=dumb` off, else only on a terminal.
 */
export function color_enabled(
  stream: { isTTY?: boolean },
  env: Readonly<Record<string, string | undefined>> = process.env,
): boolean {
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') {
    return true;
  }
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return stream.isTTY === true;
}

/** The style of `stream` under `env`. */
export function make_style(
  stream: { isTTY?: boolean },
  env: Readonly<Record<string, string | undefined>> = process.env,
): Style {
  const enabled = color_enabled(stream, env);
  const wrap = (open: number, close: number) => (text: string) =>
    enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return {
    enabled,
    dim: wrap(2, 22),
    bold: wrap(1, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
  };
}
