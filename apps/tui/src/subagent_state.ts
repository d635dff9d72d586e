/**
 * Subagents in the TUI's state: each child a `task` call started is followed from its
 * `subagent.started` to its `subagent.completed` (its current call and tool count from
 * `subagent.activity`), then handed to the `task` call's block when that call ends. Pure.
 */
import type { HostEventPayloads } from '@lich/agent';
import type { LiveTurn, SubagentView } from './state_types.js';
import { format_duration } from './text_fit.js';
import { tool_subject } from './tool_summary.js';

/** How many of a child's tool calls the state keeps for its expanded view. */
export const SUBAGENT_CALLS_KEPT = 50;

type Payload<K extends keyof HostEventPayloads> = HostEventPayloads[K];

/**
 * Whether an event is about a child of the session on screen. A grandchild's events reach the
 * parent's stream too (relayed by its parent); they belong to the child's own session.
 */
function is_ours(parent_session_id: string | null, session_id: string | null): boolean {
  return parent_session_id === null || session_id === null || parent_session_id === session_id;
}

function same(view: SubagentView, payload: { tool_call_id: string; session_id: string | null }) {
  return view.tool_call_id === payload.tool_call_id && view.session_id === payload.session_id;
}

/** `turn` with the child `subagent.started` names (once, however often the event is replayed). */
export function subagent_started(
  turn: LiveTurn,
  payload: Payload<'subagent.started'>,
  on_screen: string | null,
  at: number,
): LiveTurn {
  if (!is_ours(payload.parent_session_id, on_screen)) return turn;
  if (turn.subagents.some((view) => same(view, payload))) return turn;
  const view: SubagentView = {
    tool_call_id: payload.tool_call_id,
    session_id: payload.session_id,
    description: payload.description,
    subagent_type: payload.subagent_type,
    started_at: at,
    current: null,
    tool_count: 0,
    calls: [],
  };
  return { ...turn, subagents: [...turn.subagents, view] };
}

/** `turn` with a child's current call and tool count updated. */
export function subagent_activity(turn: LiveTurn, payload: Payload<'subagent.activity'>): LiveTurn {
  if (!turn.subagents.some((view) => same(view, payload))) return turn;
  const subagents = turn.subagents.map((view) => {
    if (!same(view, payload)) return view;
    if (payload.tool === null) return { ...view, current: null, tool_count: payload.tool_count };
    const call = { tool: payload.tool, args: payload.args ?? null };
    return {
      ...view,
      current: call,
      tool_count: payload.tool_count,
      calls: [...view.calls, call].slice(-SUBAGENT_CALLS_KEPT),
    };
  });
  return { ...turn, subagents };
}

/** `turn` with a child marked ended. */
export function subagent_completed(
  turn: LiveTurn,
  payload: Payload<'subagent.completed'>,
  at: number,
): LiveTurn {
  const subagents = turn.subagents.map((view) =>
    same(view, payload) && view.ended === undefined
      ? {
          ...view,
          current: null,
          ended: {
            ok: payload.ok,
            stopped_reason: payload.stopped_reason,
            duration_ms: Math.max(0, at - view.started_at),
          },
        }
      : view,
  );
  return { ...turn, subagents };
}

/**
 * The child of `tool_call_id`, taken out of the running ones as its `task` call ends (with the
 * call's output, the child's report, kept for Ctrl+O), and the turn without it.
 */
export function take_subagent(
  turn: LiveTurn,
  tool_call_id: string,
  report: string,
): [SubagentView | undefined, LiveTurn] {
  const view = turn.subagents.find((entry) => entry.tool_call_id === tool_call_id);
  if (view === undefined) return [undefined, turn];
  const done = { ...view, report };
  return [
    done,
    {
      ...turn,
      subagents: turn.subagents.filter((entry) => entry !== view),
      finished_subagents: [...turn.finished_subagents, done],
    },
  ];
}

/** How a child ended, in a word or three: `done`, `stopped`, `ended (budget)`, `interrupted`. */
export function subagent_outcome(view: SubagentView): string {
  if (view.ended === undefined) return 'interrupted';
  if (view.ended.ok) return 'done';
  if (view.ended.stopped_reason === 'aborted') return 'stopped';
  return `ended (${view.ended.stopped_reason})`;
}

/** The children of a turn in full, for Ctrl+O: each one's calls, then its report. */
export function subagent_detail(views: readonly SubagentView[]): { title: string; text: string } {
  const title =
    views.length === 1
      ? `subagent ${views[0]?.subagent_type}: ${views[0]?.description}`
      : `${views.length} subagents`;
  const parts = views.map((view) => {
    const count = `${view.tool_count} tool${view.tool_count === 1 ? '' : 's'}`;
    const time = view.ended === undefined ? '' : ` · ${format_duration(view.ended.duration_ms)}`;
    const session = view.session_id === null ? '' : ` · session ${view.session_id}`;
    const lines = [
      `${view.subagent_type}: ${view.description} — ${subagent_outcome(view)} · ${count}${time}${session}`,
    ];
    const dropped = view.tool_count - view.calls.length;
    if (dropped > 0) lines.push(`  … ${dropped} earlier call${dropped === 1 ? '' : 's'}`);
    for (const call of view.calls) lines.push(`  → ${tool_subject(call.tool, call.args)}`);
    // the report without the line the parent model reads first (its session is said above)
    const report = (view.report ?? '').replace(/^Subagent '[^']*' answered[^\n]*:\n+/, '').trim();
    if (report !== '') lines.push('', ...report.split('\n').map((line) => `  ${line}`));
    return lines.join('\n');
  });
  return { title, text: parts.join('\n\n') };
}
