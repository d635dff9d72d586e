import type { PlanEntry } from './acp_sdk.js';

const LIST_KEYS = ['entries', 'todos', 'plan', 'items', 'steps'] as const;
const TEXT_KEYS = ['content', 'step', 'title', 'text', 'task', 'description'] as const;

const STATUS: Readonly<Record<string, PlanEntry['status']>> = {
  pending: 'pending',
  todo: 'pending',
  not_started: 'pending',
  in_progress: 'in_progress',
  active: 'in_progress',
  doing: 'in_progress',
  completed: 'completed',
  complete: 'completed',
  done: 'completed',
};

const PRIORITY: Readonly<Record<string, PlanEntry['priority']>> = {
  high: 'high',
  medium: 'medium',
  low: 'low',
};

function entry_of(item: unknown): PlanEntry | undefined {
  if (typeof item === 'string') return { content: item, priority: 'medium', status: 'pending' };
  if (typeof item !== 'object' || item === null) return undefined;
  const fields = item as Record<string, unknown>;
  const content = TEXT_KEYS.map((key) => fields[key]).find(
    (value): value is string => typeof value === 'string' && value !== '',
  );
  if (content === undefined) return undefined;
  const status =
    typeof fields.status === 'string' ? STATUS[fields.status.toLowerCase()] : undefined;
  const priority =
    typeof fields.priority === 'string' ? PRIORITY[fields.priority.toLowerCase()] : undefined;
  return { content, priority: priority ?? 'medium', status: status ?? 'pending' };
}

/**
 * The plan in the arguments of a plan tool (`update_plan`, `todo_write`…, a plugin's or an MCP
 * server's): a list under `entries`, `todos`, `plan`, `items` or `steps`, each item a string or
 * an object with its text (`content`, `step`, `title`…), `status` and `priority`.
 *
 * Contract: pure, never throws; undefined when no list of entries is found.
 */
export function plan_entries(args: unknown): PlanEntry[] | undefined {
  if (typeof args !== 'object' || args === null) return undefined;
  const fields = args as Record<string, unknown>;
  const list = Array.isArray(args)
    ? args
    : LIST_KEYS.map((key) => fields[key]).find((value) => Array.isArray(value));
  if (!Array.isArray(list)) return undefined;
  const entries: PlanEntry[] = [];
  for (const item of list) {
    const entry = entry_of(item);
    if (entry !== undefined) entries.push(entry);
  }
  return entries;
}
