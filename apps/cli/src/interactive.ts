import type { CommandContext } from './context.js';

/**
 * The interactive session bare `lich` opens on a terminal. Today that is `lich chat`; the one
 * place to switch when the full-screen TUI exists.
 */
export async function open_interactive(context: CommandContext): Promise<number> {
  const { command_chat } = await import('./commands/chat.js');
  return command_chat(context);
}
