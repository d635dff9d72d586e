/**
 * The rewind picker's part of the state machine: which prompt, then what to restore, then what to
 * do about files someone else changed. Pure, like `state.ts`, which hands it these actions.
 */
import type { RewindPoint, RewindScope } from '@lich/agent';
import type { RewindView, TuiAction, TuiState } from './state_types.js';

/** The actions this file reduces. */
export type RewindAction = Extract<
  TuiAction,
  {
    type:
      | 'rewind_open'
      | 'rewind_move'
      | 'rewind_choose'
      | 'rewind_back'
      | 'rewind_working'
      | 'rewind_conflicts'
      | 'rewind_close';
  }
>;

/** What a prompt can have restored, in the order offered: both, then each alone. */
export function scopes_of(point: RewindPoint | undefined): RewindScope[] {
  if (point === undefined) return [];
  const scopes: RewindScope[] = [];
  if (point.files && point.conversation) scopes.push('all');
  if (point.files) scopes.push('files');
  if (point.conversation) scopes.push('conversation');
  return scopes;
}

/** The words of each scope on screen. */
export const SCOPE_WORDS: Record<RewindScope, string> = {
  all: 'Conversation and files',
  files: 'Files only (keep the conversation)',
  conversation: 'Conversation only (keep the files)',
};

function clamp(value: number, last: number): number {
  return Math.min(Math.max(0, last), Math.max(0, value));
}

/** The next state for a rewind action. Never throws; an action with no picker open is ignored. */
export function reduce_rewind(state: TuiState, action: RewindAction): TuiState {
  if (action.type === 'rewind_open') {
    const view: RewindView = {
      points: action.points,
      // the newest prompt first: the one most often undone
      selected: Math.max(0, action.points.length - 1),
      step: 'prompt',
      scopes: [],
      scope: 0,
      conflicts: [],
      working: false,
    };
    return { ...state, rewind: view };
  }
  const view = state.rewind;
  if (view === null) return state;
  switch (action.type) {
    case 'rewind_move':
      if (view.step === 'prompt') {
        return {
          ...state,
          rewind: { ...view, selected: clamp(view.selected + action.by, view.points.length - 1) },
        };
      }
      if (view.step === 'scope') {
        return {
          ...state,
          rewind: { ...view, scope: clamp(view.scope + action.by, view.scopes.length - 1) },
        };
      }
      return state;
    case 'rewind_choose': {
      const scopes = scopes_of(view.points[view.selected]);
      return { ...state, rewind: { ...view, step: 'scope', scopes, scope: 0 } };
    }
    case 'rewind_back':
      return { ...state, rewind: { ...view, step: 'prompt', working: false } };
    case 'rewind_working':
      return { ...state, rewind: { ...view, working: true } };
    case 'rewind_conflicts':
      return {
        ...state,
        rewind: { ...view, step: 'conflicts', conflicts: action.conflicts, working: false },
      };
    case 'rewind_close':
      return { ...state, rewind: null };
  }
}
