/**
 * `@lich/gateway`: chat platforms over one Lich `SessionHost`. The message envelope, the
 * `GatewayBus` (order per conversation, a global cap, queue/steer/collect), the access policy with
 * pairing, the reply chunker, the storage interfaces with in-memory and JSONL defaults, the runner
 * and the adapter contract that platform packages implement.
 */
export {
  type AccessDecision,
  type AccessPolicyConfig,
  AccessPolicyError,
  type DmPolicy,
  decide_access,
  type GroupPolicy,
  type GroupSenders,
  type IgnoreReason,
  type ResolvedAccessPolicy,
  resolve_access_policy,
} from './access_policy.js';
export {
  type GatewayAdapter,
  type GatewayIngress,
  type IngestResult,
  type Settlement,
  target_of,
} from './adapter.js';
export { ApprovalRouter, parse_approval } from './approval_router.js';
export { chunk_reply } from './chunk_reply.js';
export { DEFAULT_DEDUPE_TTL_MS, Deduper, type DeduperOptions } from './dedupe.js';
export {
  type ConversationMode,
  GatewayBus,
  type GatewayBusOptions,
  type GatewayLogEntry,
} from './gateway_bus.js';
export {
  type BusSettings,
  GatewayConfigError,
  type PlatformSettings,
  parse_platform_settings,
  read_platform_settings,
} from './gateway_config.js';
export { DEFAULT_TEXTS, type GatewayTexts } from './gateway_texts.js';
export {
  type Attachment,
  conversation_key_of,
  type InboundMessage,
  message_key,
  type ReplyRef,
  type Sender,
  sender_key,
} from './inbound_message.js';
export { type JsonlStoreOptions, open_jsonl_store } from './jsonl_store.js';
export { type MemoryStoreOptions, memory_store } from './memory_store.js';
export {
  new_pairing_code,
  normalize_pairing_code,
  PAIRING_ALPHABET,
  PAIRING_CODE_LENGTH,
} from './pairing_code.js';
export {
  DEFAULT_PAIRING_LIMITS,
  type PairingApproveResult,
  type PairingLimits,
  type PairingRequestResult,
  PairingStore,
  type PairingStoreOptions,
  type PendingPairing,
} from './pairing_store.js';
export {
  type AdapterInput,
  type PlatformCliIo,
  type PlatformDefinition,
  type PlatformOption,
  platform_help,
  run_platform_cli,
} from './platform_cli.js';
export { prompt_text } from './prompt_text.js';
export { type RateLimitOptions, type RateVerdict, SenderRateLimit } from './rate_limit.js';
export {
  type GatewayStopped,
  type RunningGateway,
  type StartGatewayOptions,
  start_gateway,
} from './runner.js';
export {
  DEFAULT_HISTORY_MESSAGES,
  type ServePlatformInput,
  serve_platform,
  stderr_logger,
} from './serve_platform.js';
export {
  type AppendResult,
  type Claim,
  type ConversationLock,
  type ConversationLog,
  FencedError,
  type GatewayStore,
  type IngressLease,
  type LoggedMessage,
  type Outbox,
  type OutboxEntry,
  outbox_key,
  type ReplyTarget,
} from './storage.js';
