import type { CommandContext } from './context.js';

/**
 * The interactive session bare `lich` opens on a terminal: the TUI (`lich tui`) when stdout is a
 * terminal as well, else the line chat (`lich chat`), whose output can go to a file.
 */
export async function open_interactive(context: CommandContext): Promise<number> {
  if (context.io.stdout.isTTY === true && context.io.env.LICH_NO_TUI !== '1') {
    return open_tui(context);
  }
  const { command_chat } = await import('./commands/chat.js');
  return command_chat(context);
}

/**
 * The TUI (`lich tui`) with `context.argv` as its arguments: what another command opens on a
 * terminal (`lich sessions resume` without a task), so commands never import each other.
 */
export async function open_tui(context: CommandContext): Promise<number> {
  const { command_tui } = await import('./commands/tui.js');
  return command_tui(context);
}
