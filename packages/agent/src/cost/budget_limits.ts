/**
 * The spending limits one run's model calls are reserved against, from the config's `budget`
 * and the run's own options (`--max-budget-usd`, a gateway's sender and conversation).
 */
import type { SessionHandle } from '@lich/session';
import type { AgentConfig } from '../config/config_schema.js';
import type { BudgetLimit } from './budget_ledger.js';
import { spent_today } from './spent_today.js';

/** A limit and the scope it is reported under (`session`, `day`, `sender`, `conversation`). */
export type ScopedLimit = BudgetLimit & { scope: string };

/** What a run says of its limits. */
export interface RunBudget {
  /** The session's limit for this run (`--max-budget-usd`); default `budget.session_usd`. */
  max_budget_usd?: number;
  /** Who and which conversation the run answers (a gateway's), for their limits. */
  budget_scopes?: { sender?: string; conversation?: string };
}

/**
 * The limits of a run of `handle` (null: an unrecorded run, whose session limit counts from 0).
 * The day's limit starts from what today's sessions of the work dir spent, read once per day
 * and process into `day_spent` (shared by the agent's runs).
 *
 * Contract: never rejects; a limit the config does not set is left out.
 */
export async function budget_limits(
  config: Pick<AgentConfig, 'budget' | 'work_dir' | 'session_dir'>,
  day_spent: Map<string, Promise<number>>,
  run: RunBudget,
  handle: SessionHandle | null,
): Promise<ScopedLimit[]> {
  const budget = config.budget;
  const day = new Date().toISOString().slice(0, 10);
  const limits: ScopedLimit[] = [];
  const session_usd = run.max_budget_usd ?? budget.session_usd;
  if (session_usd !== undefined) {
    limits.push({
      scope: 'session',
      key: `session:${handle?.id ?? `run-${process.pid}-${performance.now()}`}`,
      limit_usd: session_usd,
      spent_before_usd: handle?.state.cost_total_usd ?? 0,
    });
  }
  if (budget.day_usd !== undefined) {
    const key = `day:${config.work_dir}:${day}`;
    // a new process starts from what today's sessions of the work dir spent
    day_spent.set(key, day_spent.get(key) ?? spent_today(config.session_dir, day));
    limits.push({
      scope: 'day',
      key,
      limit_usd: budget.day_usd,
      spent_before_usd: await day_spent.get(key),
    });
  }
  const { sender, conversation } = run.budget_scopes ?? {};
  if (sender !== undefined && budget.sender_day_usd !== undefined) {
    limits.push({
      scope: 'sender',
      key: `sender:${sender}:${day}`,
      limit_usd: budget.sender_day_usd,
    });
  }
  if (conversation !== undefined && budget.conversation_usd !== undefined) {
    limits.push({
      scope: 'conversation',
      key: `conversation:${conversation}`,
      limit_usd: budget.conversation_usd,
    });
  }
  return limits;
}
