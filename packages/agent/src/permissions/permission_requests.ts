import type { LiveSession } from '../host/live_session.js';
import type { PermissionOption } from '../host/session_host_types.js';
import { EXIT_PLAN_TOOL } from '../toolbox/exit_plan_mode.js';
import type { Approver, PermissionAnswer, PermissionRequest } from './permission_gate.js';

interface Pending {
  live: LiveSession;
  finish: (answer: PermissionAnswer) => void;
}

/**
 * The permission requests a host has open: each one is a `permission.request` event of its
 * session, answered by `respond` (any subscriber), by the host's own approver, or cancelled by an
 * abort; the answer is a `permission.resolved` event.
 *
 * Contract: a request is answered once (later answers resolve false); a cancelled request is
 * resolved `cancelled`; nothing here throws.
 */
export class PermissionRequests {
  readonly #pending = new Map<string, Pending>();

  /** How many requests wait for an answer. */
  get size(): number {
    return this.#pending.size;
  }

  /**
   * The approver of one run of `live`, or null when nobody can answer: no `external` approver
   * and no subscriber of the session that approves.
   */
  approver_for(
    live: LiveSession,
    turn_id: string,
    external: Approver | undefined,
  ): Approver | null {
    if (external === undefined && live.approvers === 0) return null;
    return (request, signal) => this.#ask(live, turn_id, request, signal, external);
  }

  #ask(
    live: LiveSession,
    turn_id: string,
    request: PermissionRequest,
    signal: AbortSignal,
    external: Approver | undefined,
  ): Promise<PermissionAnswer> {
    return new Promise((resolve) => {
      let done = false;
      const on_abort = () => finish({ option: 'cancelled' });
      const finish = (answer: PermissionAnswer) => {
        if (done) return;
        done = true;
        this.#pending.delete(request.request_id);
        signal.removeEventListener('abort', on_abort);
        live.publish('permission.resolved', {
          turn_id,
          request_id: request.request_id,
          option: answer.option,
        });
        resolve(answer);
      };
      this.#pending.set(request.request_id, { live, finish });
      live.publish('permission.request', {
        turn_id,
        request_id: request.request_id,
        tool_call_id: request.tool_call_id,
        tool: request.tool,
        args: request.args,
        title: request.title,
        ...(request.preview === undefined ? {} : { preview: request.preview }),
        options: request.options,
      });
      if (request.tool === EXIT_PLAN_TOOL) {
        const plan = (request.args as { plan?: unknown } | null)?.plan;
        live.publish('plan.proposed', {
          turn_id,
          request_id: request.request_id,
          tool_call_id: request.tool_call_id,
          plan: typeof plan === 'string' ? plan : '',
        });
      }
      if (signal.aborted) {
        on_abort();
        return;
      }
      signal.addEventListener('abort', on_abort, { once: true });
      external?.(request, signal).then(finish, () => finish({ option: 'reject_once' }));
    });
  }

  /** Answers request `request_id`; false when it is unknown or already answered. */
  respond(
    request_id: string,
    option: PermissionOption,
    answer: { persist?: boolean; note?: string } = {},
  ): boolean {
    const pending = this.#pending.get(request_id);
    if (pending === undefined) return false;
    const note = answer.note?.trim() ?? '';
    pending.finish({
      option,
      ...(answer.persist === true ? { persist: true } : {}),
      ...(note === '' ? {} : { note: note.slice(0, 4_000) }),
    });
    return true;
  }

  /** Cancels every open request of `live` (it is closing). */
  cancel_session(live: LiveSession): void {
    for (const pending of [...this.#pending.values()]) {
      if (pending.live === live) pending.finish({ option: 'cancelled' });
    }
  }
}
