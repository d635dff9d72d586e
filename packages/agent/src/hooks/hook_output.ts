import type { HookEvent } from './hooks_schema.js';
import type { HookCommandOutcome } from './run_hook_command.js';

/** What one hook command decided. */
export interface HookVerdict {
  /**
   * `block`: the tool call, the prompt or the stop is refused (`reason` says why; for `Stop`, the
   * model goes on with it); `context`: text for the model; `none`: nothing; `error`: the hook
   * failed (a non-blocking error, as in Claude Code: anything but exit 0 or 2).
   */
  decision: 'block' | 'context' | 'none' | 'error';
  reason?: string;
  /** Text added for the model (`additionalContext`, or plain stdout where Claude Code adds it). */
  context?: string;
  /** `PreToolUse`: the tool input to run with instead (`hookSpecificOutput.updatedInput`). */
  updated_input?: Record<string, unknown>;
  /**
   * `PreToolUse`: `hookSpecificOutput.permissionDecision` `allow` (skip the permission question)
   * or `ask` (ask it, whatever the mode); a `deny` is a `block`.
   */
  permission?: 'allow' | 'ask';
}

/** Events whose plain stdout (exit 0, not JSON) is added to what the model sees. */
const STDOUT_IS_CONTEXT: ReadonlySet<HookEvent> = new Set(['UserPromptSubmit', 'SessionStart']);

function as_record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/**
 * Reads a hook command's answer with Claude Code's wire contract: exit code 2 blocks, with stderr
 * as the reason; exit 0 with JSON on stdout decides through `decision: "block"` + `reason`,
 * `continue: false` + `stopReason`, `hookSpecificOutput.permissionDecision: "deny"` +
 * `permissionDecisionReason` (`"allow"` and `"ask"` of a `PreToolUse` hook become `permission`),
 * adds `hookSpecificOutput.additionalContext`, and takes
 * `hookSpecificOutput.updatedInput` (a `PreToolUse` hook rewriting the call); exit 0 with plain
 * stdout adds it as context for `UserPromptSubmit` and `SessionStart`; any other exit is an error
 * that blocks nothing. Pure.
 */
export function read_hook_output(event: HookEvent, outcome: HookCommandOutcome): HookVerdict {
  if (outcome.not_run !== undefined) return { decision: 'error', reason: outcome.not_run };
  if (outcome.timed_out) return { decision: 'error', reason: 'timed out' };
  if (outcome.exit_code === 2) {
    return { decision: 'block', reason: outcome.stderr || `blocked by a ${event} hook` };
  }
  if (outcome.exit_code !== 0) {
    return {
      decision: 'error',
      reason: `exit code ${outcome.exit_code}${outcome.stderr ? `: ${outcome.stderr}` : ''}`,
    };
  }
  const stdout = outcome.stdout.trim();
  let json: Record<string, unknown> | undefined;
  if (stdout.startsWith('{')) {
    try {
      json = as_record(JSON.parse(stdout));
    } catch {
      json = undefined;
    }
  }
  if (json === undefined) {
    return stdout !== '' && STDOUT_IS_CONTEXT.has(event)
      ? { decision: 'context', context: stdout }
      : { decision: 'none' };
  }
  const specific = as_record(json.hookSpecificOutput);
  const context = text(specific?.additionalContext);
  const with_context = context === undefined ? {} : { context };
  if (json.continue === false) {
    return {
      decision: 'block',
      reason: text(json.stopReason) ?? `stopped by a ${event} hook`,
      ...with_context,
    };
  }
  if (specific?.permissionDecision === 'deny') {
    return {
      decision: 'block',
      reason: text(specific.permissionDecisionReason) ?? `denied by a ${event} hook`,
      ...with_context,
    };
  }
  if (json.decision === 'block') {
    return {
      decision: 'block',
      reason: text(json.reason) ?? `blocked by a ${event} hook`,
      ...with_context,
    };
  }
  const updated = as_record(specific?.updatedInput);
  const decided = specific?.permissionDecision;
  const with_update: Pick<HookVerdict, 'updated_input' | 'permission'> = {
    ...(updated === undefined ? {} : { updated_input: updated }),
    ...(event === 'PreToolUse' && (decided === 'allow' || decided === 'ask')
      ? { permission: decided }
      : {}),
  };
  return context === undefined
    ? { decision: 'none', ...with_update }
    : { decision: 'context', context, ...with_update };
}
