/**
 * `@lich/gateway`: chat platforms over one Lich `SessionHost`. The message envelope, the
 * `GatewayBus` (order per conversation, a global cap, queue/steer/collect), the access policy with
 * pairing, the reply chunker, the storage interfaces with in-memory and JSONL defaults, the runner
 * and the adapter contract that platform packages implement.
 */
export {
  type AccessPolicyConfig,
  AccessPolicyError,
  type DmPolicy,
  type GroupPolicy,
  type GroupSenders,
} from './access_policy.js';
export type { GatewayAdapter, GatewayIngress, IngestResult, Settlement } from './adapter.js';
export {
  BudgetNotice,
  type BudgetNoticeOptions,
  type BudgetStopped,
  budget_window,
} from './budget_notice.js';
export { Deduper, type DeduperOptions } from './dedupe.js';
export {
  type ConversationMode,
  GatewayBus,
  type GatewayBusOptions,
  type GatewayLogEntry,
} from './gateway_bus.js';
export { type BusSettings, GatewayConfigError, type PlatformSettings } from './gateway_config.js';
export type { GatewayTexts } from './gateway_texts.js';
export {
  type Attachment,
  conversation_key_of,
  type InboundMessage,
  type ReplyRef,
  type Sender,
} from './inbound_message.js';
export { type JsonlStoreOptions, open_jsonl_store } from './jsonl_store.js';
export { type MemoryStoreOptions, memory_store } from './memory_store.js';
export {
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
  run_pairing,
  run_platform_bin,
  run_platform_cli,
} from './platform_cli.js';
export { type RateLimitOptions, type RateVerdict, SenderRateLimit } from './rate_limit.js';
export {
  type GatewayStopped,
  type RunningGateway,
  type StartGatewayOptions,
  start_gateway,
} from './runner.js';
export { type ServePlatformInput, serve_platform } from './serve_platform.js';
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
  type ReplyTarget,
} from './storage.js';
