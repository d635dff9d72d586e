export type { CliIo, Command, CommandContext } from './context.js';
export { EXIT, type ExitCode } from './exit_codes.js';
export { COMMANDS, type CommandName, help_text } from './help.js';
export { main } from './main.js';
export { color_enabled, make_style, type Style } from './style.js';
export { compare_versions, git_checkout_of, latest_version } from './update_check.js';
export { version } from './version.js';
