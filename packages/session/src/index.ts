/**
 * `@lich/session`: append-only JSONL transcripts of Lich runs, with a recorder for the loop's
 * events, a crash-tolerant reader, resume, listing, search and Markdown export.
 */

export { one_line } from '@lich/core';
export {
  type BlobBytes,
  externalize_images,
  read_blob,
  resolve_images,
  write_blobs,
} from './blobs.js';
export { SessionError, type SessionErrorCode } from './errors.js';
export type { AppendOptions, FsyncMode, SessionHandle } from './handle.js';
export {
  type ListSessionsOptions,
  list_sessions,
  type SessionSummary,
  TITLE_LIMIT,
} from './list.js';
export { export_markdown } from './markdown.js';
export {
  type ReadMessagesOptions,
  type ReadSessionOptions,
  read_session,
  read_session_messages,
  type SessionContents,
  type SessionProblem,
} from './reader.js';
export {
  attach_recorder,
  type EventSource,
  type RecorderOptions,
  SessionRecorder,
} from './recorder.js';
export {
  type BudgetExhaustedRecord,
  type CheckpointMarkRecord,
  type CompressEndRecord,
  type HookRecord,
  type MessageRecord,
  type MessageSource,
  type PermissionRecord,
  type RecordBase,
  type RewindRecord,
  type RunEndRecord,
  type RunStartRecord,
  SESSION_FORMAT_VERSION,
  SESSION_RECORD_TYPES,
  type SessionRecord,
  type SessionRecordInput,
  type SessionRecordType,
  type SessionStartRecord,
  type TitleRecord,
} from './records.js';
export { type SearchHit, type SearchSessionsOptions, search_sessions } from './search.js';
export { assert_session_id, is_valid_session_id, new_session_id } from './session_id.js';
export type { SessionStorage } from './session_storage.js';
export { type NestableSession, type NestedSession, nest_sessions } from './session_tree.js';
export {
  apply_record,
  before_last_run,
  type CheckpointMark,
  conversation_of,
  empty_state,
  is_retry_of,
  type LastRewind,
  type LastRun,
  type PromptMark,
  type SessionState,
  state_of,
} from './state.js';
export {
  type CreateSessionOptions,
  default_blob_dir,
  default_session_dir,
  type OpenSessionOptions,
  SessionStore,
  type SessionStoreOptions,
} from './store.js';
