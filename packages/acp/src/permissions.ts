import type { HostEventPayloads, PermissionOption } from '@lich/agent';
import type { ToolPreview } from '@lich/core';
import type {
  AcpPermissionOption,
  RequestPermissionRequest,
  RequestPermissionResponse,
  ToolCallContent,
} from './acp_sdk.js';
import { absolute_path, type ToolDisplay } from './tool_display.js';

/** The label the editor shows for each answer. */
export const PERMISSION_LABELS: Readonly<Record<PermissionOption, string>> = {
  allow_once: 'Allow',
  allow_always: 'Always allow',
  reject_once: 'Reject',
  reject_always: 'Always reject',
};

/** The labels of the answers to a plan (`exit_plan_mode`): approving also picks the next mode. */
export const PLAN_LABELS: Readonly<Record<PermissionOption, string>> = {
  allow_once: 'Approve the plan (then ask before edits)',
  allow_always: 'Approve the plan and auto-edit',
  reject_once: 'Keep planning',
  reject_always: 'Keep planning',
};

/**
 * The `session/request_permission` params for a host `permission.request`: the tool call (its
 * title is the host's one line, e.g. `terminal: git push`; kind, locations and diff from
 * `display`) and one option per answer the host offers, each option id the answer's own name.
 */
export function permission_request(
  session_id: string,
  request: HostEventPayloads['permission.request'],
  display: ToolDisplay,
  work_dir?: string,
): RequestPermissionRequest {
  const plan = request.tool === 'exit_plan_mode';
  const offered = plan
    ? request.options.filter((option) => option !== 'reject_always')
    : request.options;
  const options: AcpPermissionOption[] = offered.map((option) => ({
    optionId: option,
    name: (plan ? PLAN_LABELS : PERMISSION_LABELS)[option],
    kind: option,
  }));
  return {
    sessionId: session_id,
    toolCall: {
      toolCallId: request.tool_call_id,
      title: request.title,
      kind: display.kind,
      status: 'pending',
      locations: display.locations,
      content: preview_content(request.preview, display, work_dir),
      rawInput: request.args,
    },
    options,
  };
}

/**
 * What the editor shows with the question: the whole file before and after when the host sent
 * them (a diff the editor can lay out), the command line of a command, else what the arguments
 * say (`display`).
 */
function preview_content(
  preview: ToolPreview | undefined,
  display: ToolDisplay,
  work_dir: string | undefined,
): ToolCallContent[] {
  if (preview === undefined) return display.content;
  if (preview.new_text !== undefined && preview.path !== undefined && work_dir !== undefined) {
    return [
      {
        type: 'diff',
        path: absolute_path(work_dir, preview.path),
        oldText: preview.old_text ?? null,
        newText: preview.new_text,
      },
    ];
  }
  if (display.content.length > 0) return display.content;
  return [{ type: 'content', content: { type: 'text', text: preview.text } }];
}

/**
 * The host answer for the client's response: the option it selected, when the host offered it;
 * a cancelled request (or an option the host did not offer) is `reject_once`.
 */
export function permission_answer(
  response: RequestPermissionResponse,
  offered: readonly PermissionOption[],
): PermissionOption {
  const { outcome } = response;
  if (outcome.outcome !== 'selected') return 'reject_once';
  const chosen = offered.find((option) => option === outcome.optionId);
  return chosen ?? 'reject_once';
}
