import { randomUUID } from 'node:crypto';
import type { ToolPreview } from '@lich/core';
import type { ToolHooks } from '@lich/tools';
import { HOOK_PERMISSION_FIELD } from '../hooks/hook_dispatcher.js';
import {
  type ApprovalMode,
  PERMISSION_OPTIONS,
  type PermissionOption,
} from '../host/session_host_types.js';
import { EXIT_PLAN_TOOL } from '../toolbox/exit_plan_mode.js';
import type { PermissionPolicy, PolicyDecision, RememberedAnswers } from './permission_policy.js';
import { parse_rule, tool_kind } from './permission_rules.js';

/** A question put to a person: may this call run? */
export interface PermissionRequest {
  request_id: string;
  tool_call_id: string;
  tool: string;
  args: unknown;
  /** One line for a person: `terminal: git push`. */
  title: string;
  /** What the call would do (the diff of an edit, a new file's first lines, the command). */
  preview?: ToolPreview;
  options: readonly PermissionOption[];
}

/** A person's answer; `cancelled` when the run was aborted first (counts as a rejection). */
export interface PermissionAnswer {
  option: PermissionOption | 'cancelled';
  /** With `allow_always` / `reject_always`: also write the rule to the project config. */
  persist?: boolean;
  /** With a rejection: the person's words, passed to the model with the refusal. */
  note?: string;
}

/**
 * Asks a person. Contract: resolves with their answer, or `{ option: 'cancelled' }` once
 * `signal` aborts; a rejection counts as `reject_once`.
 */
export type Approver = (
  request: PermissionRequest,
  signal: AbortSignal,
) => Promise<PermissionAnswer>;

/** One decision, as the session file records it. */
export interface PermissionDecision {
  tool: string;
  tool_call_id?: string;
  title: string;
  decision: 'allow' | 'deny';
  source: 'rule' | 'mode' | 'session' | 'approver' | 'no_approver' | 'hook';
  rule?: string;
  option?: string;
  /** The person's words with a rejection. */
  note?: string;
}

/** What a gate is made of. */
export interface PermissionGateOptions {
  policy: PermissionPolicy;
  /** The mode now (a session's may change between calls). */
  mode: () => ApprovalMode;
  /** The session's remembered answers; `allow_always` / `reject_always` add to it. */
  remembered: RememberedAnswers;
  /** Who to ask now; null when nobody can answer (then `ask` means deny). */
  approver: () => Approver | null;
  /** Hears every decision (to record it in the session). Must not throw. */
  on_decision?: (decision: PermissionDecision) => void;
  /** Writes a remembered rule to the project config (when the person asked to persist it). */
  persist?: (effect: 'allow' | 'deny', rule: string) => Promise<void>;
  /** What a call would do, shown with the question (see `call_preview`). */
  preview?: (tool: string, args: unknown, signal: AbortSignal) => Promise<ToolPreview | undefined>;
  /** Hears a rule that could not be persisted. */
  on_warning?: (text: string) => void;
  /**
   * Moves the session to another approval mode: called when the user approves a plan
   * (`exit_plan_mode` in plan mode), with `default` (`allow_once`) or `auto_edit` (`allow_always`).
   */
  set_mode?: (mode: ApprovalMode) => void;
}

const PLAN_MODE_REFUSAL =
  'Only read-only tools run in plan mode, until the user approves a plan. Look around as much as you need, then call exit_plan_mode with your plan.';

/** What a gate says of one call: `reason` for the model, `summary` a few words for people. */
export type GateVerdict = { ok: true } | { ok: false; reason: string; summary?: string };

/** Checks each tool call of a run (or a session) against the policy, asking when it must. */
export interface PermissionGate {
  check(
    tool: string,
    args: unknown,
    context: {
      tool_call_id?: string;
      signal?: AbortSignal;
      /** A `PreToolUse` hook's `permissionDecision`: `allow` skips the question, `ask` forces it. */
      hook?: 'allow' | 'ask';
    },
  ): Promise<GateVerdict>;
}

/** The field of a tool call's context the permission hook reads its gate from. */
export const PERMISSION_GATE_FIELD = 'permission_gate';

function how_to_allow(policy: PermissionPolicy, tool: string, args: unknown): string {
  const rule = policy.rule_for(tool, args);
  const modes =
    tool_kind(tool) === 'edit'
      ? 'approval mode auto_edit (lich --approval-mode auto_edit) or yolo (lich --yolo)'
      : 'approval mode yolo (lich --yolo)';
  return `To allow it, add "${rule}" to "permissions": { "allow": [...] } in .lich/config.json, or use ${modes}.`;
}

/**
 * A gate over `options.policy`: `allow` runs, `deny` blocks with the reason, `ask` goes to the
 * approver (`allow_once` / `allow_always` run; `reject_once`, `reject_always`, `cancelled` and a
 * failing approver block), and with no approver blocks with a message saying how to allow it.
 * A `PreToolUse` hook's decision (`context.hook`) weighs in as in Claude Code: `ask` puts the
 * question even where the mode or a rule would allow the call (yolo, auto_edit); `allow` skips a
 * question the mode would put, but never a deny or ask rule, plan mode, or a plan's approval; the
 * hardline list, the path guard and the sandbox are the tools' own and apply either way.
 *
 * Contract: `check` never rejects; every decision goes to `on_decision`; `allow_always` and
 * `reject_always` are remembered in `options.remembered` (and persisted when asked).
 */
export function create_permission_gate(options: PermissionGateOptions): PermissionGate {
  const { policy } = options;
  const decide = (decision: PermissionDecision): void => {
    try {
      options.on_decision?.(decision);
    } catch {
      // recording is best-effort
    }
  };
  return {
    async check(tool, args, context) {
      const title = policy.title(tool, args);
      const base = {
        tool,
        title,
        ...(context.tool_call_id === undefined ? {} : { tool_call_id: context.tool_call_id }),
      };
      let verdict: PolicyDecision;
      try {
        verdict = policy.decide(tool, args, options.mode(), options.remembered);
      } catch (error) {
        return {
          ok: false,
          reason: `the permission check failed: ${String(error)}`,
          summary: 'the permission check failed',
        };
      }
      const rule = verdict.rule === undefined ? {} : { rule: verdict.rule };
      const plan = tool === EXIT_PLAN_TOOL && options.mode() === 'plan';
      const hook_asks = context.hook === 'ask' && verdict.decision === 'allow';
      if (hook_asks) {
        verdict = { decision: 'ask', source: 'mode' };
      } else if (
        context.hook === 'allow' &&
        verdict.decision === 'ask' &&
        verdict.source === 'mode' &&
        !plan
      ) {
        decide({ ...base, decision: 'allow', source: 'hook' });
        return { ok: true };
      }
      if (verdict.decision === 'allow') {
        decide({ ...base, decision: 'allow', source: verdict.source, ...rule });
        if (plan) options.set_mode?.('default');
        return { ok: true };
      }
      if (verdict.decision === 'deny' && verdict.source === 'mode') {
        decide({ ...base, decision: 'deny', source: 'mode' });
        return {
          ok: false,
          reason: `${title} was not run: the session is in plan mode. ${PLAN_MODE_REFUSAL}`,
          summary: 'refused in plan mode',
        };
      }
      if (verdict.decision === 'deny') {
        decide({ ...base, decision: 'deny', source: verdict.source, ...rule });
        return {
          ok: false,
          reason:
            verdict.source === 'rule'
              ? `${title} is denied by the permission rule "${verdict.rule}" (permissions.deny in the config).`
              : `${title} was declined for the rest of this session.`,
          summary:
            verdict.source === 'rule'
              ? `denied by the rule ${verdict.rule}`
              : 'declined for this session',
        };
      }
      const approver = options.approver();
      if (approver === null) {
        decide({ ...base, decision: 'deny', source: 'no_approver', ...rule });
        if (hook_asks) {
          return {
            ok: false,
            reason: `A PreToolUse hook asks a person to approve ${title}, and no one is here to approve it.`,
            summary: 'a hook asks for approval, and no one can give it',
          };
        }
        return {
          ok: false,
          reason: `${title} needs approval, and no one is here to approve it. ${how_to_allow(policy, tool, args)}`,
          summary: `needs approval, and no one can give it: allow it with "${policy.rule_for(tool, args)}" in permissions.allow`,
        };
      }
      const signal = context.signal ?? new AbortController().signal;
      const preview = await options.preview?.(tool, args, signal).catch(() => undefined);
      const request: PermissionRequest = {
        request_id: `perm_${randomUUID()}`,
        tool_call_id: context.tool_call_id ?? '',
        tool,
        args,
        title,
        ...(preview === undefined ? {} : { preview }),
        options: PERMISSION_OPTIONS,
      };
      let answer: PermissionAnswer;
      try {
        // the run may have stopped while the preview was made
        answer = signal.aborted ? { option: 'cancelled' } : await approver(request, signal);
      } catch {
        answer = { option: 'reject_once' };
      }
      const option = signal.aborted ? 'cancelled' : answer.option;
      const allowed = option === 'allow_once' || option === 'allow_always';
      // a plan is approved or not once: nothing about it is remembered
      if (!plan && (option === 'allow_always' || option === 'reject_always')) {
        const remembered_rule = policy.rule_for(tool, args);
        const effect = option === 'allow_always' ? 'allow' : 'deny';
        options.remembered[effect].push(parse_rule(remembered_rule));
        if (answer.persist === true && options.persist !== undefined) {
          await options.persist(effect, remembered_rule).catch((error: unknown) => {
            options.on_warning?.(
              `the rule ${remembered_rule} was not written to the project config: ${error instanceof Error ? error.message : String(error)}`,
            );
          });
        }
      }
      const note = allowed ? '' : (answer.note?.trim() ?? '');
      decide({
        ...base,
        decision: allowed ? 'allow' : 'deny',
        source: 'approver',
        option,
        ...rule,
        ...(note === '' ? {} : { note }),
      });
      if (allowed) {
        if (plan) options.set_mode?.(option === 'allow_always' ? 'auto_edit' : 'default');
        return { ok: true };
      }
      if (plan && option !== 'cancelled') {
        return {
          ok: false,
          summary: note === '' ? 'plan not approved' : `plan not approved: ${note}`,
          reason:
            note === ''
              ? 'The user did not approve the plan. Stay in plan mode and ask the user what to change.'
              : `The user did not approve the plan and said: ${note}\nStay in plan mode: revise the plan, then call exit_plan_mode again.`,
        };
      }
      const always =
        option === 'reject_always' ? ' (and every such call for the rest of this session)' : '';
      return {
        ok: false,
        summary:
          option === 'cancelled'
            ? 'stopped while waiting for approval'
            : note !== ''
              ? `declined: ${note}`
              : option === 'reject_always'
                ? 'declined for this session'
                : 'declined',
        reason:
          option === 'cancelled'
            ? `${title} was not run: the run was stopped while it waited for approval.`
            : note !== ''
              ? `The user declined ${title}${always} and said: ${note}`
              : `The user declined ${title}${always}. Do not retry it; ask the user what to do instead.`,
      };
    },
  };
}

/**
 * The executor hook that puts every call through the gate found in its context
 * (`context.permission_gate`); a call with no gate in its context runs unchecked (a tool called
 * outside a run).
 */
export const PERMISSION_HOOK: ToolHooks = {
  async before_tool_call(name, args, context) {
    const gate = context[PERMISSION_GATE_FIELD] as PermissionGate | undefined;
    if (gate === undefined || typeof gate.check !== 'function') return undefined;
    // the signal is read only when a person is asked: the tool call's one is made when first read
    const call: { tool_call_id?: string; hook?: 'allow' | 'ask'; readonly signal: AbortSignal } = {
      get signal() {
        return context.signal;
      },
    };
    if (typeof context.tool_call_id === 'string') call.tool_call_id = context.tool_call_id;
    const hook = context[HOOK_PERMISSION_FIELD];
    if (hook === 'allow' || hook === 'ask') call.hook = hook;
    const verdict = await gate.check(name, args, call);
    if (verdict.ok) return undefined;
    return verdict.summary === undefined
      ? { block: verdict.reason }
      : { block: verdict.reason, summary: verdict.summary };
  },
};
