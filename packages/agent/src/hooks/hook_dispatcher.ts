import type { ToolResult, ToolRunContext } from '@lich/core';
import type { SessionHandle } from '@lich/session';
import type { Sandbox, ToolHooks } from '@lich/tools';
import { claude_tool_name } from '../skills/claude_tool_names.js';
import { type HookVerdict, read_hook_output } from './hook_output.js';
import { claude_tool_input, lich_tool_args } from './hook_tool_input.js';
import type { HookEvent, HookGroup, HookSet } from './hooks_schema.js';
import { run_hook_command } from './run_hook_command.js';

/** The field of a tool call's context telling hooks which session the call belongs to. */
export const HOOK_SESSION_FIELD = 'lich_hook_session';

/**
 * The field of a tool call's context where the `PreToolUse` hooks leave their permission decision
 * (`allow` or `ask`) for the permission hook, which runs after them on the same call.
 */
export const HOOK_PERMISSION_FIELD = 'lich_hook_permission';

/** The session a hook runs for: its file (to record decisions in) and its id. */
export interface HookSession {
  handle: SessionHandle | null;
  /** Claude Code's `session_id`: the session's id, or a per-run id when nothing is recorded. */
  session_id: string;
}

/** What all the hooks of one event decided, together. */
export interface HookRunResult {
  /** The first block's reason, when a hook blocked. */
  block?: string;
  /** The last `updatedInput` a `PreToolUse` hook gave. */
  updated_input?: Record<string, unknown>;
  /** The `PreToolUse` hooks' permission decision: `ask` when any said so, else `allow` if any did. */
  permission?: 'allow' | 'ask';
  /** Context every hook added, in order. */
  context: string[];
}

/** How a `HookDispatcher` is built. */
export interface HookDispatcherOptions {
  /** The hook sets, config and imports (`resolve_hook_sets`), read once when first needed. */
  sets(): Promise<readonly HookSet[]>;
  /** Whether the repository's hooks (`origin: 'project'`) may run. */
  trusted: boolean;
  work_dir: string;
  sandbox: Sandbox;
  env_passthrough: readonly string[];
  on_warning(text: string): void;
}

/** Characters of a tool's output handed to a `PostToolUse` hook. */
const TOOL_RESPONSE_CHARS = 20_000;

function matches(matcher: string | undefined, names: readonly string[]): boolean {
  if (matcher === undefined || matcher === '' || matcher === '*') return true;
  let pattern: RegExp;
  try {
    pattern = new RegExp(`^(?:${matcher})$`);
  } catch {
    return names.includes(matcher);
  }
  return names.some((name) => pattern.test(name));
}

/**
 * Runs the command hooks of the config and its imports on agent events, with Claude Code's wire
 * contract (`read_hook_output`), and records each decision in the session as a `hook` record.
 *
 * Contract:
 * - hooks of the repository run only when `trusted`; the first time they are left out, a warning
 *   says so (once per dispatcher);
 * - the hooks of one event run one after the other, in config order; the first block wins, and
 *   the hooks after it still run only when the event cannot be blocked;
 * - `run` never rejects: a hook that fails is a non-blocking error (a warning and a record).
 */
export class HookDispatcher {
  readonly #options: HookDispatcherOptions;
  #sets: Promise<readonly HookSet[]> | undefined;
  #said_untrusted = false;

  constructor(options: HookDispatcherOptions) {
    this.#options = options;
  }

  /** The hook sets that may run (the repository's left out unless trusted). */
  async #runnable(): Promise<readonly HookSet[]> {
    this.#sets ??= this.#options.sets();
    const sets = await this.#sets;
    if (this.#options.trusted) return sets;
    const held = sets.filter((set) => set.origin === 'project' && has_hooks(set));
    if (held.length > 0 && !this.#said_untrusted) {
      this.#said_untrusted = true;
      this.#options.on_warning(
        `the hooks of ${held.map((set) => set.source).join(', ')} do not run: this folder is not trusted (lich trust, or --trust)`,
      );
    }
    return sets.filter((set) => set.origin !== 'project');
  }

  /** Whether any hook may run for `event` (so callers can skip building its input). */
  async has(event: HookEvent): Promise<boolean> {
    return (await this.#runnable()).some((set) => (set.settings[event]?.length ?? 0) > 0);
  }

  /**
   * Runs the hooks of `event` whose matcher takes one of `match` (tool names, a source), with
   * `fields` added to the common input (`session_id`, `transcript_path`, `cwd`,
   * `hook_event_name`).
   */
  async run(
    event: HookEvent,
    fields: Record<string, unknown>,
    options: { session: HookSession; match?: readonly string[]; signal?: AbortSignal },
  ): Promise<HookRunResult> {
    const result: HookRunResult = { context: [] };
    const groups: HookGroup[] = [];
    for (const set of await this.#runnable()) groups.push(...(set.settings[event] ?? []));
    if (groups.length === 0) return result;
    const input = JSON.stringify({
      session_id: options.session.session_id,
      transcript_path: options.session.handle?.path ?? null,
      cwd: this.#options.work_dir,
      hook_event_name: event,
      ...fields,
    });
    for (const group of groups) {
      if (options.match !== undefined && !matches(group.matcher, options.match)) continue;
      for (const hook of group.hooks) {
        if (options.signal?.aborted) return result;
        const outcome = await run_hook_command(hook.command, input, {
          work_dir: this.#options.work_dir,
          sandbox: this.#options.sandbox,
          env_passthrough: this.#options.env_passthrough,
          ...(hook.timeout === undefined ? {} : { timeout_seconds: hook.timeout }),
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        });
        const verdict = read_hook_output(event, outcome);
        this.#record(event, hook.command, outcome.exit_code, verdict, options.session, fields);
        if (verdict.decision === 'error') {
          this.#options.on_warning(`${event} hook '${hook.command}' failed: ${verdict.reason}`);
        }
        if (verdict.context !== undefined) result.context.push(verdict.context);
        if (verdict.updated_input !== undefined) result.updated_input = verdict.updated_input;
        // as in Claude Code: deny (a block) over ask over allow
        if (verdict.permission !== undefined && result.permission !== 'ask') {
          result.permission = verdict.permission;
        }
        if (verdict.decision === 'block' && result.block === undefined) {
          result.block = verdict.reason ?? `blocked by a ${event} hook`;
          return result;
        }
      }
    }
    return result;
  }

  #record(
    event: HookEvent,
    command: string,
    exit_code: number | null,
    verdict: HookVerdict,
    session: HookSession,
    fields: Record<string, unknown>,
  ): void {
    const handle = session.handle;
    if (handle === null || handle.closed) return;
    const tool = typeof fields.tool_name === 'string' ? fields.tool_name : undefined;
    handle
      .append({
        type: 'hook',
        event,
        command,
        exit_code,
        decision: verdict.decision,
        ...(tool === undefined ? {} : { tool }),
        ...(verdict.reason === undefined ? {} : { reason: verdict.reason.slice(0, 2_000) }),
        ...(verdict.context === undefined ? {} : { context: verdict.context.slice(0, 2_000) }),
        ...(verdict.permission === undefined ? {} : { permission: verdict.permission }),
      })
      .catch((error: unknown) =>
        this.#options.on_warning(
          `session ${handle.path}: a hook decision was not recorded: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
  }

  /**
   * `PreToolUse` and `PostToolUse` as executor hooks: a block stops the call with the hook's
   * reason for the model; a `PostToolUse` block or context is added to the result the model reads.
   */
  tool_hooks(): ToolHooks {
    const session_of = (context: ToolRunContext): HookSession =>
      (context[HOOK_SESSION_FIELD] as HookSession | undefined) ?? {
        handle: null,
        session_id: 'none',
      };
    const names = (tool: string) => [claude_tool_name(tool), tool];
    return {
      before_tool_call: async (name, args, context) => {
        if (!(await this.has('PreToolUse'))) return undefined;
        const outcome = await this.run(
          'PreToolUse',
          {
            tool_name: claude_tool_name(name),
            tool_input: claude_tool_input(args, this.#options.work_dir),
            ...(context.tool_call_id === undefined ? {} : { tool_use_id: context.tool_call_id }),
          },
          { session: session_of(context), match: names(name), signal: context.signal },
        );
        if (outcome.block === undefined) {
          // the permission hook, after this one, reads it (the context is the call's own)
          if (outcome.permission !== undefined) context[HOOK_PERMISSION_FIELD] = outcome.permission;
          return outcome.updated_input === undefined
            ? undefined
            : { args: lich_tool_args(args, outcome.updated_input, this.#options.work_dir) };
        }
        return {
          block: `A PreToolUse hook blocked this call: ${outcome.block}`,
          summary: 'blocked by a hook',
        };
      },
      after_tool_call: async (name, args, result: ToolResult, context) => {
        if (!(await this.has('PostToolUse'))) return undefined;
        const outcome = await this.run(
          'PostToolUse',
          {
            tool_name: claude_tool_name(name),
            tool_input: claude_tool_input(args, this.#options.work_dir),
            tool_response: {
              ok: result.ok,
              output: result.output.slice(0, TOOL_RESPONSE_CHARS),
              ...(result.error === undefined ? {} : { error: result.error }),
            },
            ...(context.tool_call_id === undefined ? {} : { tool_use_id: context.tool_call_id }),
          },
          { session: session_of(context), match: names(name), signal: context.signal },
        );
        const notes = [
          ...(outcome.block === undefined ? [] : [`PostToolUse hook feedback: ${outcome.block}`]),
          ...outcome.context.map((text) => `PostToolUse hook context: ${text}`),
        ];
        if (notes.length === 0) return undefined;
        return { ...result, output: `${result.output}\n\n${notes.join('\n\n')}` };
      },
    };
  }
}

function has_hooks(set: HookSet): boolean {
  return Object.entries(set.settings).some(
    ([key, groups]) => key !== 'import' && Array.isArray(groups) && groups.length > 0,
  );
}
