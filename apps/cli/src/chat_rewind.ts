import { format_rewind_points, type RewindOutcome, type RewindScope } from '@lich/agent';
import type { ChatState } from './chat_commands.js';

/** Asks one line; resolves with the answer, or null when the question was given up. */
export type AskText = (question: string) => Promise<string | null>;

const SCOPE_KEYS: Record<string, RewindScope> = { a: 'all', f: 'files', c: 'conversation' };

/**
 * `/rewind` typed alone in `lich chat` at a terminal: the prompts of the session, then which one
 * to go back to, then what to restore, then — when someone else changed files since — whether to
 * overwrite them. Resolves with the prompt's text when the conversation was rewound (the chat puts
 * it back at the prompt), else null. Failures are said, never thrown.
 */
export async function interactive_rewind(state: ChatState, ask: AskText): Promise<string | null> {
  try {
    const points = await state.host.rewind_points(state.session_id);
    state.say(format_rewind_points(points));
    if (points.length === 0) return null;
    const number =
      (await ask('Rewind to before which prompt? (its number; Enter: none) '))?.trim() ?? '';
    const point = points.find((entry) => String(entry.prompt) === number.replace('#', ''));
    if (point === undefined) {
      if (number !== '') state.say(`no prompt ${number}`);
      return null;
    }
    const offered: string[] = [];
    if (point.files && point.conversation) offered.push('[a]ll: conversation and files');
    if (point.files) offered.push('[f]iles only');
    if (point.conversation) offered.push('[c]onversation only');
    const first = offered[0]?.[1] ?? 'a';
    const key = (await ask(`Restore ${offered.join(', ')}? (Enter: ${first}) `))
      ?.trim()
      .toLowerCase();
    if (key === null || key === undefined) return null;
    const scope = SCOPE_KEYS[key === '' ? first : (key[0] ?? '')];
    if (
      scope === undefined ||
      !offered.some((entry) => entry[1] === key.slice(0, 1) || key === '')
    ) {
      state.say('nothing was rewound');
      return null;
    }
    let outcome: RewindOutcome = await state.host.rewind(state.session_id, {
      prompt: point.prompt,
      scope,
    });
    if (outcome.status === 'conflicts') {
      state.say(outcome.summary);
      const answer = (
        await ask('Overwrite them (o), keep them as they are (k), or leave everything (Enter)? ')
      )
        ?.trim()
        .toLowerCase();
      if (answer !== 'o' && answer !== 'k') return null;
      outcome = await state.host.rewind(state.session_id, {
        prompt: point.prompt,
        scope,
        on_conflict: answer === 'o' ? 'overwrite' : 'keep',
      });
    }
    state.say(outcome.summary);
    const removed = outcome.conversation?.removed ?? 0;
    return outcome.status === 'rewound' && removed > 0 ? (outcome.input ?? null) : null;
  } catch (error) {
    state.say(error instanceof Error ? error.message : String(error));
    return null;
  }
}
