/**
 * `@lich/serve/protocol`: the wire types of `lich serve`, for desktop apps, editor plugins and
 * web UIs. Types and a few constants; no runtime dependencies. See `protocol.md`.
 */
export {
  CLOSE_CODES,
  ERROR_CODES,
  type ErrorCodeName,
  type LichErrorData,
} from './protocol_errors.js';
export {
  APPROVAL_MODES,
  type ClientInfo,
  EVENT_TYPES,
  type InitializeParams,
  type InitializeResult,
  METHOD_NAMES,
  type MethodMap,
  type MethodName,
  type MethodParams,
  type MethodResult,
  type NotificationMap,
  PERMISSION_OPTIONS,
  PROTOCOL_VERSION,
  type RpcErrorObject,
  type RpcId,
  type RpcNotification,
  type RpcRequest,
  type RpcResponse,
  type ServerLimits,
  type ServerMessage,
  type TurnTicketResult,
} from './protocol_methods.js';
export type {
  EventParams,
  EventPayloads,
  EventType,
  WireApprovalMode,
  WireAssistantMessage,
  WireCommandInfo,
  WireMessage,
  WireModelInfo,
  WirePermissionOption,
  WireSessionInfo,
  WireToolCall,
  WireToolInfo,
  WireTurnStopReason,
  WireUsage,
} from './protocol_types.js';
