import type { ApprovalMode, HostEvent } from '@lich/agent';
import type { SessionUpdate, ToolCallContent } from './acp_sdk.js';
import { plan_entries } from './plan.js';
import { describe_tool_call, is_plan_tool, type ToolDisplay } from './tool_display.js';

export function text_block(text: string): { type: 'text'; text: string } {
  return { type: 'text', text };
}

/** Tool output shown in the editor is cut to this many characters (the model saw it whole). */
export const TOOL_OUTPUT_SHOWN_CHARS = 20_000;

function shown_output(text: string): string {
  if (text.length <= TOOL_OUTPUT_SHOWN_CHARS) return text;
  return `${text.slice(0, TOOL_OUTPUT_SHOWN_CHARS)}\n… (${text.length - TOOL_OUTPUT_SHOWN_CHARS} more characters)`;
}

/**
 * Turns one session's host events into ACP `session/update`s. One mapper per ACP session: it
 * remembers each running tool call (its display, for the final update) and whether the current
 * model call streamed, so a non-streaming answer still reaches the editor.
 *
 * Contract: `map` never throws and returns the updates in the order to send them;
 * `message.delta` → `agent_message_chunk`, `reasoning.delta` → `agent_thought_chunk`,
 * `tool.start` → `tool_call` (kind, title, locations, the diff of `edit_file`/`write_file`; a plan
 * tool also gives a `plan`; Lich's `todo_write` gives it with `todo.updated`), `tool.end` → `tool_call_update` (`completed` or `failed`, with the
 * output), `usage.update` → `usage_update` when the context size is known, `session.info` →
 * `current_mode_update` / `session_info_update` when the mode or title changed,
 * `subagent.activity` → a `tool_call_update` of the `task` call whose content says what its
 * subagent does now (a subagent's own session is its own business). Permission and
 * turn events are the agent's business, not this mapper's.
 */
export class SessionUpdateMapper {
  readonly #work_dir: string;
  readonly #tools = new Map<string, ToolDisplay>();
  /** Tool calls the editor shows a terminal for: their final update keeps it. */
  readonly #terminals = new Set<string>();
  #streamed_text = false;
  #streamed_reasoning = false;
  #mode: ApprovalMode | undefined;
  #title: string | undefined;

  constructor(work_dir: string, initial?: { mode?: ApprovalMode; title?: string }) {
    this.#work_dir = work_dir;
    this.#mode = initial?.mode;
    this.#title = initial?.title;
  }

  /** The display of a tool call seen in `tool.start` (for a permission request). */
  tool_display(tool_call_id: string, name: string, args: unknown): ToolDisplay {
    return this.#tools.get(tool_call_id) ?? describe_tool_call(name, args, this.#work_dir);
  }

  /** Notes that the editor shows `tool_call_id`'s output in one of its terminals. */
  note_terminal(tool_call_id: string): void {
    this.#terminals.add(tool_call_id);
  }

  map(event: HostEvent): SessionUpdate[] {
    switch (event.type) {
      case 'message.delta': {
        if (event.payload.text === '') return [];
        this.#streamed_text = true;
        return [{ sessionUpdate: 'agent_message_chunk', content: text_block(event.payload.text) }];
      }
      case 'reasoning.delta': {
        if (event.payload.text === '') return [];
        this.#streamed_reasoning = true;
        return [{ sessionUpdate: 'agent_thought_chunk', content: text_block(event.payload.text) }];
      }
      case 'message.completed': {
        // a provider that does not stream delivers its answer here only
        const { message } = event.payload;
        const updates: SessionUpdate[] = [];
        if (!this.#streamed_reasoning && message.reasoning) {
          updates.push({
            sessionUpdate: 'agent_thought_chunk',
            content: text_block(message.reasoning),
          });
        }
        if (!this.#streamed_text && message.content !== '') {
          updates.push({
            sessionUpdate: 'agent_message_chunk',
            content: text_block(message.content),
          });
        }
        this.#streamed_text = false;
        this.#streamed_reasoning = false;
        return updates;
      }
      case 'tool.start': {
        const { tool_call_id, name, args } = event.payload;
        const display = describe_tool_call(name, args, this.#work_dir);
        this.#tools.set(tool_call_id, display);
        const updates: SessionUpdate[] = [
          {
            sessionUpdate: 'tool_call',
            toolCallId: tool_call_id,
            title: display.title,
            kind: display.kind,
            // it may wait for approval: in_progress comes with tool.running
            status: 'pending',
            locations: display.locations,
            content: display.content,
            rawInput: args,
          },
        ];
        // Lich's own todo_write sends its plan once checked, with `todo.updated`
        if (is_plan_tool(name) && name !== 'todo_write') {
          const entries = plan_entries(args);
          if (entries !== undefined) updates.push({ sessionUpdate: 'plan', entries });
        }
        return updates;
      }
      case 'tool.running':
        return [
          {
            sessionUpdate: 'tool_call_update',
            toolCallId: event.payload.tool_call_id,
            status: 'in_progress',
          },
        ];
      case 'tool.end': {
        const { tool_call_id, name, ok, output, error } = event.payload;
        const display = this.#tools.get(tool_call_id);
        this.#tools.delete(tool_call_id);
        const raw_output = error === undefined ? { output } : { output, error };
        if (this.#terminals.delete(tool_call_id)) {
          // the terminal shown stays the content
          return [
            {
              sessionUpdate: 'tool_call_update',
              toolCallId: tool_call_id,
              status: ok ? 'completed' : 'failed',
              rawOutput: raw_output,
            },
          ];
        }
        const content: ToolCallContent[] = [];
        const diff = display?.content.filter((item) => item.type === 'diff') ?? [];
        if (ok && diff.length > 0 && (name === 'edit_file' || name === 'write_file')) {
          content.push(...diff);
        } else {
          const text = output !== '' ? output : (error ?? '');
          if (text !== '')
            content.push({ type: 'content', content: text_block(shown_output(text)) });
        }
        return [
          {
            sessionUpdate: 'tool_call_update',
            toolCallId: tool_call_id,
            status: ok ? 'completed' : 'failed',
            content,
            rawOutput: raw_output,
          },
        ];
      }
      case 'subagent.activity': {
        // what the subagent of a `task` call does now, as that call's content (replaced each time)
        const { tool_call_id, tool, args, tool_count } = event.payload;
        if (!this.#tools.has(tool_call_id)) return [];
        const now =
          tool === null ? 'thinking' : describe_tool_call(tool, args, this.#work_dir).title;
        const calls = `${tool_count} tool call${tool_count === 1 ? '' : 's'}`;
        return [
          {
            sessionUpdate: 'tool_call_update',
            toolCallId: tool_call_id,
            content: [{ type: 'content', content: text_block(`${now} · ${calls} so far`) }],
          },
        ];
      }
      case 'todo.updated':
        return [
          {
            sessionUpdate: 'plan',
            entries: event.payload.items.map((item) => ({
              content: item.content,
              status: item.status,
              priority: 'medium' as const,
            })),
          },
        ];
      case 'usage.update': {
        const { context_tokens, context_window, cost_total_usd } = event.payload;
        if (context_tokens === undefined || context_window === undefined) return [];
        return [
          {
            sessionUpdate: 'usage_update',
            used: context_tokens,
            size: context_window,
            // the session's cost, when every call of it had a known price
            ...(typeof cost_total_usd === 'number'
              ? { cost: { amount: cost_total_usd, currency: 'USD' } }
              : {}),
          },
        ];
      }
      case 'session.info': {
        const updates: SessionUpdate[] = [];
        const { approval_mode, title } = event.payload;
        if (this.#mode !== undefined && approval_mode !== this.#mode) {
          updates.push({ sessionUpdate: 'current_mode_update', currentModeId: approval_mode });
        }
        this.#mode = approval_mode;
        if (this.#title !== undefined && title !== this.#title) {
          updates.push({
            sessionUpdate: 'session_info_update',
            title,
            updatedAt: event.payload.updated,
          });
        }
        this.#title = title;
        return updates;
      }
      default:
        return [];
    }
  }
}
