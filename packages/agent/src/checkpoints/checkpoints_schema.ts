import { z } from 'zod';

/** The settings of checkpoints and rewind, as the config gives them (defaults applied). */
export const CHECKPOINTS_OBJECT_SCHEMA = z.object({
  enabled: z
    .boolean()
    .default(true)
    .describe('Take a checkpoint of the work dir before the first change of each prompt.'),
  keep_days: z
    .number()
    .positive()
    .default(30)
    .describe('Checkpoints of closed sessions older than this are pruned (once a day).'),
  max_mb: z
    .number()
    .positive()
    .default(1024)
    .describe('Then the oldest are pruned until the store (.lich/checkpoints) fits in this.'),
  max_file_mb: z
    .number()
    .positive()
    .default(10)
    .describe('Files larger than this are recorded by name, not kept (a rewind leaves them).'),
  exclude: z
    .array(z.string().min(1))
    .default([])
    .describe(
      'More paths left out, gitignore-like: *.log (a name anywhere), data/raw (from the work dir), build/ (folders only).',
    ),
  default_excludes: z
    .boolean()
    .default(true)
    .describe(
      'Leave out dependency and cache folders (node_modules, .venv, __pycache__, folders with a CACHEDIR.TAG…); reinstalling brings them back.',
    ),
  watch: z
    .boolean()
    .default(true)
    .describe(
      'In a long session (the TUI, chat, serve), learn which folders changed from file notifications (Linux), so a checkpoint reads only those; false: walk the whole work dir every time.',
    ),
  tools: z
    .array(z.string().min(1))
    .default([])
    .describe(
      "More tools whose calls change files (* patterns), e.g. a plugin's; MCP servers say so with writes: true.",
    ),
});

/** `checkpoints`: an object, or true / false for the defaults on or off. */
export const CHECKPOINTS_SCHEMA = z
  .union([z.boolean(), CHECKPOINTS_OBJECT_SCHEMA])
  .describe(
    'Checkpoints of the work dir for /rewind (false turns them off). Kept under .lich/checkpoints; .git/ is never touched.',
  );

/** The `checkpoints` key of the effective config: always an object. */
export type CheckpointSettings = z.infer<typeof CHECKPOINTS_OBJECT_SCHEMA>;

/** The defaults of every `checkpoints` setting. */
export const DEFAULT_CHECKPOINTS: CheckpointSettings = CHECKPOINTS_OBJECT_SCHEMA.parse({});

/** The effective settings of a parsed `checkpoints` value. */
export function checkpoint_settings(
  value: boolean | CheckpointSettings | undefined,
): CheckpointSettings {
  if (value === undefined || value === true) return { ...DEFAULT_CHECKPOINTS };
  if (value === false) return { ...DEFAULT_CHECKPOINTS, enabled: false };
  return value;
}
