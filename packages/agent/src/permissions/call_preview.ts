import type { ToolPreview } from '@lich/core';
import type { ToolRegistry } from '@lich/tools';

/** A preview that takes longer than this is left out: the question is asked without it. */
const PREVIEW_TIMEOUT_MS = 2_000;

/**
 * The `preview` of a permission gate over `registry`: asks the tool what the call would do (its
 * optional `preview`), within `PREVIEW_TIMEOUT_MS`. Resolves undefined for a tool without one, a
 * preview that fails or is too slow; never rejects.
 */
export function call_preview(
  registry: ToolRegistry,
  work_dir: string,
): (tool: string, args: unknown, signal: AbortSignal) => Promise<ToolPreview | undefined> {
  return async (name, args, signal) => {
    const tool = registry.get(name);
    if (tool?.preview === undefined) return undefined;
    const parsed = tool.parameters.safeParse(args);
    if (!parsed.success) return undefined;
    const limit = AbortSignal.any([signal, AbortSignal.timeout(PREVIEW_TIMEOUT_MS)]);
    try {
      const preview = tool.preview(parsed.data, { work_dir, signal: limit });
      const stopped = new Promise<undefined>((resolve) => {
        if (limit.aborted) resolve(undefined);
        limit.addEventListener('abort', () => resolve(undefined), { once: true });
      });
      return await Promise.race([preview, stopped]);
    } catch {
      return undefined;
    }
  };
}
