/**
 * `@lich/gateway`: chat platforms over one Lich `SessionHost`. The message envelope, the
 * `GatewayBus` (order per conversation, a global cap, queue/steer/collect), the access policy with
 * pairing, the reply chunker, the storage interfaces with in-memory and JSONL defaults, the runner
 * and the adapter contract that platform packages implement.
 */

/** The picture checks of `@lich/core`, so a platform package needs nothing but this one. */
export {
  byte_size_text,
  type ImageIntake,
  type ImagePart,
  image_from_base64,
  image_from_bytes,
  image_media_type,
} from '@lich/core';
export {
  type AccessPolicyConfig,
  AccessPolicyError,
  type DmPolicy,
  type GroupPolicy,
  type GroupSenders,
} from './access_policy.js';
export type { GatewayAdapter, GatewayIngress, IngestResult, Settlement } from './adapter.js';
export {
  type AttachmentIntake,
  attachment_label,
  DEFAULT_MAX_IMAGE_BYTES,
  max_image_bytes_setting,
  not_a_picture,
  ONLY_TEXT_AND_PICTURES,
  type RefusedAttachment,
} from './attachment_intake.js';
export {
  BudgetNotice,
  type BudgetNoticeOptions,
  type BudgetStopped,
  budget_window,
} from './budget_notice.js';
export { Deduper, type DeduperOptions } from './dedupe.js';
export { type DownloadImageOptions, download_image } from './download_image.js';
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
export { fetch_public_image, host_in_list, type PublicImageOptions } from './public_image.js';
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
