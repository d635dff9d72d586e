/**
 * Whether the terminal re-wraps its lines when it narrows (reflow): a line wider than the new
 * width moves on to more rows, so the TUI must erase those rows, not the line count of its last
 * frame, before drawing the next one. Terminals that cut their lines instead (xterm, the Linux
 * console, GNU screen) keep one row per line, and erasing more would eat the transcript above:
 * only terminals known to reflow are treated so.
 */
export function terminal_reflows(env: NodeJS.ProcessEnv): boolean {
  // screen cuts its lines, whatever the terminal it runs in does
  if (env.STY !== undefined) return false;
  if (env.TMUX !== undefined) return true;
  const program = env.TERM_PROGRAM ?? '';
  if (REFLOWING_PROGRAMS.has(program)) return true;
  const term = env.TERM ?? '';
  if (
    term === 'xterm-kitty' ||
    term === 'alacritty' ||
    term === 'foot' ||
    term === 'xterm-ghostty'
  ) {
    return true;
  }
  return (
    env.VTE_VERSION !== undefined ||
    env.KONSOLE_VERSION !== undefined ||
    env.KITTY_WINDOW_ID !== undefined ||
    env.ALACRITTY_WINDOW_ID !== undefined ||
    env.WT_SESSION !== undefined
  );
}

/** `TERM_PROGRAM` of terminals that reflow. */
const REFLOWING_PROGRAMS = new Set([
  'tmux',
  'iTerm.app',
  'Apple_Terminal',
  'WezTerm',
  'vscode',
  'ghostty',
  'Tabby',
  'Hyper',
]);
