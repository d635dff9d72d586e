import { SessionHostError } from './session_host_error.js';
import type { ApprovalMode } from './session_host_types.js';

const APPROVAL_MODES: readonly ApprovalMode[] = ['default', 'auto_edit', 'plan', 'yolo'];

/** `value` when it is a string with something in it; else an `invalid_argument` error. */
export function text_argument(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new SessionHostError('invalid_argument', `${name} must be a non-empty string`);
  }
  return value;
}

/** `mode` when it is an approval mode; else an `invalid_argument` error naming it. */
export function approval_mode_argument(mode: unknown): ApprovalMode {
  if (!APPROVAL_MODES.includes(mode as ApprovalMode)) {
    throw new SessionHostError('invalid_argument', `unknown approval mode '${String(mode)}'`);
  }
  return mode as ApprovalMode;
}
