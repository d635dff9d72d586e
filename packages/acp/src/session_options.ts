import type { ApprovalMode, ModelInfo, SessionInfo } from '@lich/agent';
import type { SessionConfigOption, SessionModeState } from './acp_sdk.js';

/** Lich's approval modes as ACP session modes, in the order the editor lists them. */
export const APPROVAL_MODES: readonly { id: ApprovalMode; name: string; description: string }[] = [
  {
    id: 'default',
    name: 'Ask',
    description: 'Ask before tool calls the permission policy does not allow.',
  },
  {
    id: 'auto_edit',
    name: 'Auto-edit',
    description: 'Edit files in the work dir without asking; ask before the rest.',
  },
  {
    id: 'plan',
    name: 'Plan',
    description: 'Read and plan only; edits and commands wait until you approve the plan.',
  },
  { id: 'yolo', name: 'Yolo', description: 'Run every tool call without asking.' },
];

/** The config option id of the model selector. */
export const MODEL_OPTION = 'model';
/** The config option id of the approval-mode selector (the same as `session/set_mode`). */
export const MODE_OPTION = 'mode';

/** True for an ACP mode id that names an approval mode. */
export function is_approval_mode(value: string): value is ApprovalMode {
  return APPROVAL_MODES.some((mode) => mode.id === value);
}

/** The session's modes for `session/new`, `load` and `resume`. */
export function session_modes(info: SessionInfo): SessionModeState {
  return {
    currentModeId: info.approval_mode,
    availableModes: APPROVAL_MODES.map(({ id, name, description }) => ({ id, name, description })),
  };
}

/** How a model is named in `session/set_config_option`: `provider/model`. */
export function model_value(provider: string, model: string): string {
  return `${provider}/${model}`;
}

/**
 * The session's config options: the model (every model the host can switch to, the current one
 * selected) and the approval mode.
 */
export function session_config_options(
  info: SessionInfo,
  models: readonly ModelInfo[],
): SessionConfigOption[] {
  const current = model_value(info.provider, info.model);
  const choices = models.map((entry) => ({
    value: model_value(entry.provider, entry.model),
    name: entry.model,
    description: entry.provider,
  }));
  if (!choices.some((choice) => choice.value === current)) {
    choices.unshift({ value: current, name: info.model, description: info.provider });
  }
  return [
    {
      type: 'select',
      id: MODEL_OPTION,
      name: 'Model',
      category: 'model',
      currentValue: current,
      options: choices,
    },
    {
      type: 'select',
      id: MODE_OPTION,
      name: 'Approval mode',
      category: 'mode',
      currentValue: info.approval_mode,
      options: APPROVAL_MODES.map(({ id, name, description }) => ({
        value: id,
        name,
        description,
      })),
    },
  ];
}
