/** A prompt template a team keeps as a file: a custom slash command. */
export interface CustomCommand {
  /** The name typed after the slash; subfolders give namespaces: `frontend:component`. */
  name: string;
  description: string;
  argument_hint?: string;
  /** Tools its shell lines may run without asking, as written (`Bash(git status:*)`). */
  allowed_tools?: readonly string[];
  /** The model the front matter names (`model:`): the command's turn runs on it when configured. */
  model?: string;
  /** `markdown` (Claude Code, Lich): `$ARGUMENTS`, `$1`, `@file`, !`cmd`; `toml` (Gemini CLI): `{{args}}`, `!{cmd}`, `@{file}`. */
  dialect: 'markdown' | 'toml';
  /** The template: the markdown body, or the TOML `prompt`. */
  template: string;
  /** The file it came from. */
  path: string;
  /** `project` for the repository's (its shell lines need a trusted folder), `user` for the person's. */
  origin: 'project' | 'user';
}

/** What command discovery found. */
export interface CustomCommandCatalog {
  commands: readonly CustomCommand[];
  /** Each names the file: a malformed one, a name taken. */
  warnings: readonly string[];
}
