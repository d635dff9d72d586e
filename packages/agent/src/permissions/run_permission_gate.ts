import type { SessionHandle } from '@lich/session';
import type { ToolRegistry } from '@lich/tools';
import type { AgentRunOptions } from '../agent_options.js';
import type { ApprovalMode } from '../host/session_host_types.js';
import { call_preview } from './call_preview.js';
import { type Approver, PERMISSION_GATE_FIELD, type PermissionRequest } from './permission_gate.js';
import type { PermissionPolicy, RememberedAnswers } from './permission_policy.js';
import { session_permission_gate } from './session_permission_gate.js';

/** What the permission gate of one run is made from. */
export interface RunGateOptions {
  run: Pick<AgentRunOptions, 'tool_context' | 'approver' | 'on_approval_mode'>;
  handle: SessionHandle | null;
  remembered: RememberedAnswers;
  on_warning: (text: string) => void;
  /** The run's approval mode: an approved plan (exit_plan_mode) moves it on. */
  state: { mode: ApprovalMode };
  policy: PermissionPolicy;
  /** Where the previews of the calls asked about are read. */
  registry: ToolRegistry;
  work_dir: string;
  trusted: boolean;
  /** Hears that a person is about to be asked (Claude Code's Notification event). */
  on_asking: (request: PermissionRequest) => void;
}

/**
 * The permission gate of one run, for its tool context: `undefined` when the run's
 * `tool_context` brings its own. Without an `approver`, a call that would ask is refused; with
 * one, `on_asking` hears each question before the approver does. A mode the run moves on to is
 * kept in `state` and reported to `on_approval_mode`. Decisions are recorded in the session file
 * (`session_permission_gate`).
 */
export function run_permission_gate(options: RunGateOptions): unknown {
  const { run, handle, state } = options;
  if (run.tool_context?.[PERMISSION_GATE_FIELD] !== undefined) return undefined;
  const given = run.approver;
  const approver: Approver | null =
    given === undefined
      ? null
      : (request, signal) => {
          options.on_asking(request);
          return given(request, signal);
        };
  return session_permission_gate({
    policy: options.policy,
    mode: () => state.mode,
    set_mode: (mode) => {
      state.mode = mode;
      run.on_approval_mode?.(mode);
    },
    approver: () => approver,
    remembered: options.remembered,
    handle,
    on_warning: options.on_warning,
    preview: call_preview(options.registry, options.work_dir),
    trusted: options.trusted,
  });
}
