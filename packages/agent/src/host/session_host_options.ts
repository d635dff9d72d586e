import type { SessionStorage } from '@lich/session';
import type { Agent } from '../agent.js';
import type { Approver } from '../permissions/permission_gate.js';
import type { ApprovalMode } from './session_host_types.js';

/** How a host is built. */
export interface SessionHostOptions {
  /** The agent every session runs on. `shutdown` closes it. */
  agent: Agent;
  /**
   * Where sessions are recorded: default the JSONL files of `agent.config.session_dir`; `false`
   * records nothing (sessions live in memory only).
   */
  storage?: SessionStorage | false;
  /**
   * Which recorded sessions the host lists and opens: by default those of the agent's work dir
   * (a session of another folder is unknown to it, so `lich serve` on a database shared with
   * gateways never lists nor takes over their conversations); `{ work_dir }` another folder's;
   * `'all'` every session of the storage (a gateway, whose nodes in other folders carry each
   * other's conversations by id).
   */
  scope?: { work_dir: string } | 'all';
  /** The approval mode of new sessions (default `config.permissions.mode`, else `default`). */
  approval_mode?: ApprovalMode;
  /**
   * Answers permission requests besides the subscribers that can approve (a gateway's owner);
   * its request is a `permission.request` event all the same, and the first answer wins. With
   * neither, `ask` means deny, with a message saying how to allow.
   */
  approver?: Approver;
  /**
   * Events held per session for replay (default 512). 0 holds none: for a host in the process of
   * its only surface, which subscribes before it prompts (`lich "task"`, `lich chat`).
   */
  ring_events?: number;
  /** Bytes (JSON) held per session for replay (default 4 MiB). */
  ring_bytes?: number;
  /** Spacing of coalesced text deltas in ms (default 33, about 30 per second); 0 sends each. */
  coalesce_ms?: number;
  /**
   * Seed each run with at most this many messages of the session's history (a gateway keeps
   * chats short): older messages are left out from a user message on, so a tool result never
   * loses its call. The session file keeps everything said; a trimmed seed is written anew.
   */
  history_limit?: number;
  /**
   * Each run may retry a stream cut mid-answer from the start (`AgentRunOptions`): for a surface
   * that shows no text until a message is complete (`lich chat` into a pipe), so nothing shown is
   * repeated. Default false: deltas already published would be published again.
   */
  restartable_stream?: boolean;
  /**
   * Look up how commands will run (`SessionInfo.sandbox`) as each session opens, for its first
   * `session.info` (default true: a client shows it before anything runs). False for a surface
   * that shows it only on a command's line (the one-shot `lich "task"`): nothing is started that
   * the process would wait for at its end, and a session learns the kind from its first command
   * that ran sandboxed.
   */
  probe_sandbox?: boolean;
  /** The process epoch (default a new random id). */
  epoch?: string;
  /** The version written to new session files (default the agent's). */
  lich_version?: string;
  /** Hears warnings; default stderr. */
  on_warning?: (text: string) => void;
  /** The clock, for tests. */
  now?: () => Date;
}
