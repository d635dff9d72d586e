import type { SessionHandle } from '@lich/session';
import type { ApprovalMode } from '../host/session_host_types.js';
import {
  type Approver,
  create_permission_gate,
  type PermissionDecision,
  type PermissionGate,
  type PermissionGateOptions,
} from './permission_gate.js';
import type { PermissionPolicy, RememberedAnswers } from './permission_policy.js';
import { persist_permission_rule } from './persist_permission_rule.js';

/** What a session's gate is made of. */
export interface SessionGateOptions {
  policy: PermissionPolicy;
  mode: () => ApprovalMode;
  approver: () => Approver | null;
  remembered: RememberedAnswers;
  /** The session file decisions are recorded in (`permission` records); null records nothing. */
  handle: SessionHandle | null;
  on_warning: (text: string) => void;
  /** Hears each decision besides the record. */
  on_decision?: (decision: PermissionDecision) => void;
  /** What a call would do, shown with the question (`call_preview`). */
  preview?: PermissionGateOptions['preview'];
  /** Moves the session to another mode (an approved plan). */
  set_mode?: PermissionGateOptions['set_mode'];
  /**
   * Whether the folder is trusted: in one that is not, an allow rule written to the project
   * config acts only once it is (as every allow rule of that file), and a warning says so.
   */
  trusted?: boolean;
}

/**
 * A permission gate that records every decision in the session file and writes a rule the
 * person asked to keep (`allow_always` / `reject_always` with persist) to the project config.
 * A record that cannot be written is a warning; so is an allow rule kept in a folder not trusted
 * (the answer still holds for the rest of the session).
 */
export function session_permission_gate(options: SessionGateOptions): PermissionGate {
  const { handle } = options;
  return create_permission_gate({
    policy: options.policy,
    mode: options.mode,
    remembered: options.remembered,
    approver: options.approver,
    on_warning: options.on_warning,
    ...(options.preview === undefined ? {} : { preview: options.preview }),
    ...(options.set_mode === undefined ? {} : { set_mode: options.set_mode }),
    persist: async (effect, rule) => {
      await persist_permission_rule(options.policy.work_dir, effect, rule);
      if (effect === 'allow' && options.trusted === false) {
        options.on_warning(
          `the rule ${rule} was written to .lich/config.json; it applies in later sessions once this folder is trusted (lich trust): until then the repository's allow rules do not count`,
        );
      }
    },
    on_decision: (decision) => {
      options.on_decision?.(decision);
      if (handle === null || handle.closed) return;
      handle
        .append({
          type: 'permission',
          ...(handle.state.runs > 0 ? { run: handle.state.runs } : {}),
          ...decision,
        })
        .catch((error: unknown) =>
          options.on_warning(
            `session ${handle.path}: a permission decision was not recorded: ${error instanceof Error ? error.message : String(error)}`,
          ),
        );
    },
  });
}
