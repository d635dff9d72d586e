import { parse } from 'smol-toml';

/**
 * A Gemini CLI command file: `prompt` (required) and `description`. Throws an `Error` saying what
 * is wrong (not TOML, no `prompt`); callers make that a warning.
 */
export function parse_toml_command(text: string): { prompt: string; description?: string } {
  let data: Record<string, unknown>;
  try {
    data = parse(text) as Record<string, unknown>;
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new Error(`not valid TOML: ${message}`);
  }
  if (typeof data.prompt !== 'string' || data.prompt.trim() === '') {
    throw new Error('it has no prompt');
  }
  const description =
    typeof data.description === 'string' && data.description.trim() !== ''
      ? data.description.trim()
      : undefined;
  return { prompt: data.prompt, ...(description === undefined ? {} : { description }) };
}
