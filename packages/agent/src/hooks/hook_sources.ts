import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { path_inside } from '@lich/tools';
import { scan_jsonc } from '../config/jsonc.js';
import { HOOKS_SCHEMA, type HookSet } from './hooks_schema.js';

/** The hook files of other harnesses, by the name `hooks.import` gives them. */
export const HOOK_IMPORTS: Readonly<Record<string, string>> = Object.freeze({
  claude: '.claude/settings.json',
  'claude-local': '.claude/settings.local.json',
  codex: '.codex/hooks.json',
});

function expand(path: string, home: string): string {
  return path === '~' || path.startsWith('~/') ? join(home, path.slice(2)) : path;
}

function inside(folder: string, path: string): boolean {
  return path_inside(folder, path) !== null;
}

/**
 * The hooks of another harness's file with only their `command` hooks: Lich runs no `prompt`,
 * `http` or `agent` hook, and such a hook must not make the file's other hooks unreadable.
 */
function only_commands(hooks: unknown): unknown {
  if (typeof hooks !== 'object' || hooks === null) return hooks;
  const result: Record<string, unknown> = {};
  for (const [event, groups] of Object.entries(hooks)) {
    result[event] = Array.isArray(groups)
      ? groups.map((group: unknown) =>
          typeof group === 'object' &&
          group !== null &&
          Array.isArray((group as { hooks?: unknown }).hooks)
            ? {
                ...group,
                hooks: (group as { hooks: unknown[] }).hooks.filter(
                  (hook) =>
                    typeof hook === 'object' &&
                    hook !== null &&
                    (hook as { type?: unknown }).type === 'command',
                ),
              }
            : group,
        )
      : groups;
  }
  return result;
}

/**
 * The hook sets of the config, then those of each file its `hooks.import` lists (Claude Code's
 * `settings.json` and Codex's `hooks.json` hold the same `{ "hooks": { … } }`). An imported file
 * inside the work dir is the repository's (`project`); one outside it the person's (`user`).
 * Never throws: a missing file is skipped silently, a malformed one is a warning naming it.
 */
export async function resolve_hook_sets(options: {
  sets: readonly HookSet[];
  work_dir: string;
  home?: string;
  on_warning: (text: string) => void;
}): Promise<HookSet[]> {
  const home = options.home ?? homedir();
  const result: HookSet[] = [...options.sets];
  const seen = new Set<string>();
  for (const set of options.sets) {
    for (const entry of set.settings.import ?? []) {
      const path = resolve(options.work_dir, expand(HOOK_IMPORTS[entry] ?? entry, home));
      if (seen.has(path)) continue;
      seen.add(path);
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch {
        continue;
      }
      let hooks: unknown;
      try {
        hooks = (JSON.parse(scan_jsonc(text).json) as { hooks?: unknown }).hooks;
      } catch (error) {
        options.on_warning(
          `hooks of ${path} were not read: ${error instanceof Error ? error.message : error}`,
        );
        continue;
      }
      if (hooks === undefined) continue;
      const parsed = HOOKS_SCHEMA.safeParse(only_commands(hooks));
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        options.on_warning(
          `hooks of ${path} were not read: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim(),
        );
        continue;
      }
      const { import: _nested, ...settings } = parsed.data;
      result.push({
        // a file of the repository is the repository's, whoever named it
        origin: inside(options.work_dir, path) ? 'project' : set.origin,
        source: path,
        settings,
      });
    }
  }
  return result;
}
