/**
 * What a ChatFn throws to refuse a model call because a budget would be crossed (a spending
 * limit kept by its caller): the loop then ends the run with `stopped_reason: 'budget'` instead
 * of failing it. The core knows nothing of the budget itself.
 */
export class BudgetStop extends Error {
  /** A marker that survives two copies of this package (`is_budget_stop` reads it). */
  readonly budget_stop = true;
  /** Which limit refused the call (`session`, `day`, `sender`…). */
  readonly scope: string;

  constructor(message: string, scope: string) {
    super(message);
    this.name = 'BudgetStop';
    this.scope = scope;
  }
}

/** Whether `error` is a `BudgetStop` (from any copy of this package). Never throws. */
export function is_budget_stop(error: unknown): error is BudgetStop {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { budget_stop?: unknown }).budget_stop === true
  );
}
