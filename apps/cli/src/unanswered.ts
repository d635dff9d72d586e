/** What `lich` says of a run that ended without an answer. */
export interface Unanswered {
  /** The warning line (without `lich: warning:`). */
  warning: string;
  /** True when the run failed (exit 1): a limit stopped it before an answer. */
  failed: boolean;
}

/**
 * The warning for a run that ended without an answer, by why it stopped: a spending limit
 * (`budget`, its message when known), the turn budget (`max_turns`), or anything else (the model
 * just ended). The first two are failures, with the flag that raises the limit.
 */
export function unanswered(
  stopped_reason: string,
  options: { budget?: string | undefined; max_turns: number },
): Unanswered {
  if (stopped_reason === 'budget') {
    return {
      warning: `${options.budget ?? 'a spending limit stopped the run'} (raise --max-budget-usd or budget in the config)`,
      failed: true,
    };
  }
  if (stopped_reason === 'max_turns') {
    const turns = `the ${options.max_turns} turn${options.max_turns === 1 ? '' : 's'} allowed`;
    return {
      warning: `the model gave no answer within ${turns} (raise --max-turns)`,
      failed: true,
    };
  }
  return { warning: 'the model ended without an answer', failed: false };
}
