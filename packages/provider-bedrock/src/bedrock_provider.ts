import type { Message, ToolDefinition } from '@lich/core';
import {
  create_http_provider,
  type LLMProvider,
  type ProviderConfig,
  ProviderError,
} from '@lich/providers';
import { AWS_CREDENTIAL_HINT, type BedrockAuth, find_aws_auth } from './aws_credentials.js';
import type { BedrockRequest } from './bedrock_api.js';
import { with_cache_points } from './bedrock_cache_points.js';
import { BEDROCK_KIND, type BedrockSettings, read_bedrock_settings } from './bedrock_settings.js';
import { BedrockStreamState } from './bedrock_stream_state.js';
import { EventStreamDecoder } from './event_stream_decoder.js';
import { read_bedrock_error } from './read_bedrock_error.js';
import { sign_sigv4 } from './sign_sigv4.js';
import { to_bedrock_messages, to_bedrock_tools } from './to_bedrock_messages.js';

/** The error types of a request Bedrock refused for its credentials. */
const AUTH_ERRORS = new Set([
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'ExpiredTokenException',
  'AccessDeniedException',
  'IncompleteSignatureException',
  'MissingAuthenticationTokenException',
]);

/**
 * Builds a provider for Amazon Bedrock's Converse API: one `POST <base>/model/<model>/
 * converse-stream` per call (`/converse` when not streaming), the answer read from AWS's event
 * stream framing, each request signed with SigV4 (service `bedrock`). Credentials come from
 * `options.credentials`, else the environment (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
 * `AWS_SESSION_TOKEN`), else the shared credentials file at `AWS_PROFILE`; a Bedrock API key
 * (`api_key`, or `AWS_BEARER_TOKEN_BEDROCK`) is sent as a bearer token instead. `base_url`
 * defaults to `https://bedrock-runtime.<region>.amazonaws.com`. `BedrockOptions` lists
 * `config.options`. Throttling is a retryable 429. Prompt caching (`config.cache`, on by default for
 * the models that take it, `bedrock_cache_support`): `cachePoint` blocks after the tools, the
 * system prompt and the newest message (`with_cache_points`).
 *
 * Contract: that of `create_http_provider`; no credentials found is a `ProviderError` of kind
 * `config` naming the variables to set, at the first call (the factory does no I/O).
 */
export function create_bedrock_provider(config: ProviderConfig): LLMProvider {
  const settings = read_bedrock_settings(config);
  let auth: Promise<BedrockAuth | undefined> | undefined;
  return create_http_provider(config, {
    kind: BEDROCK_KIND,
    settings,
    build_request: build_bedrock_request,
    streams: (current) => current.stream,
    url: (current, stream) => (stream ? current.url : current.whole_url),
    decoder: () => new EventStreamDecoder(),
    stream_state: (context, on_delta) => new BedrockStreamState(context, on_delta),
    from_json: (body, context) => {
      const whole = new BedrockStreamState(context);
      whole.take_whole(typeof body === 'object' && body !== null ? body : {});
      return whole.result();
    },
    extract_error: read_bedrock_error,
    key_envs: [AWS_CREDENTIAL_HINT],
    is_auth_error: (error) =>
      error.status === 401 || (error.code !== undefined && AUTH_ERRORS.has(error.code)),
    async sign(request) {
      if (config.api_key) return { authorization: `Bearer ${config.api_key}` };
      auth ??= settings.credentials
        ? Promise.resolve({ kind: 'sigv4', credentials: settings.credentials })
        : find_aws_auth(process.env);
      const found = await auth;
      if (found === undefined) {
        auth = undefined; // looked for again next time: the user may set them meanwhile
        throw new ProviderError({
          kind: 'config',
          provider: BEDROCK_KIND,
          model: config.model,
          cause: new Error(`no AWS credentials: set ${AWS_CREDENTIAL_HINT}`),
        });
      }
      if (found.kind === 'bearer') return { authorization: `Bearer ${found.token}` };
      return sign_sigv4(
        { method: 'POST', ...request },
        { credentials: found.credentials, region: settings.region, service: 'bedrock' },
      );
    },
  });
}

/** The request body of one call. */
export function build_bedrock_request(
  config: ProviderConfig,
  settings: BedrockSettings,
  messages: readonly Message[],
  tools: readonly ToolDefinition[],
  max_tokens?: number,
): BedrockRequest {
  const prompt = to_bedrock_messages(messages);
  // keys in the order the prompt is read (tools, system, messages), so that the body of one
  // request begins with that of the previous one up to its last cache point
  const tool_config = bedrock_tool_config(messages, tools);
  const request: BedrockRequest = {
    ...(tool_config === undefined ? {} : { toolConfig: tool_config }),
    ...(prompt.system === undefined ? {} : { system: prompt.system }),
    messages: prompt.messages,
  };
  const inference: NonNullable<BedrockRequest['inferenceConfig']> = {};
  const limit = max_tokens ?? config.max_tokens;
  if (limit !== undefined) inference.maxTokens = limit;
  if (config.temperature !== undefined) inference.temperature = config.temperature;
  if (Object.keys(inference).length > 0) request.inferenceConfig = inference;
  if (settings.additional_fields !== undefined) {
    request.additionalModelRequestFields = settings.additional_fields;
  }
  const body: BedrockRequest = { ...request, ...settings.extra_body };
  return settings.cache === undefined ? body : with_cache_points(body, settings.cache);
}

/** The tools of a call; none declared but some used: Converse wants them declared anyway. */
function bedrock_tool_config(
  messages: readonly Message[],
  tools: readonly ToolDefinition[],
): BedrockRequest['toolConfig'] {
  if (tools.length > 0) return to_bedrock_tools(tools);
  // Converse refuses toolUse blocks without a toolConfig: the grace call declares them
  const used = new Map<string, ToolDefinition>();
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const call of message.tool_calls ?? []) {
      used.set(call.name, {
        name: call.name,
        description: 'Not available in this turn.',
        parameters: { type: 'object', properties: {} },
      });
    }
  }
  return used.size > 0 ? to_bedrock_tools([...used.values()]) : undefined;
}
