import type { NewBlock } from './history_blocks.js';
import type { TuiState } from './state_types.js';

/** `state` with `blocks` added at the end of the transcript, numbered from its `next_id`. */
export function push(state: TuiState, ...blocks: NewBlock[]): TuiState {
  if (blocks.length === 0) return state;
  let next_id = state.next_id;
  const numbered = blocks.map((block) => ({ ...block, id: next_id++ }) as TuiState['blocks'][0]);
  return { ...state, blocks: [...state.blocks, ...numbered], next_id };
}
