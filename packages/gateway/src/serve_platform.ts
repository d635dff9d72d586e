import { join } from 'node:path';
import type { GatewayLogEntry } from './gateway_bus.js';
import { GatewayBus } from './gateway_bus.js';
import { GatewayConfigError, type PlatformSettings } from './gateway_config.js';
import { pairing_text_for } from './gateway_texts.js';
import { conversation_key_of } from './inbound_message.js';
import type { PairingStore } from './pairing_store.js';
import type { PlatformCliIo, PlatformDefinition } from './platform_cli.js';
import { start_gateway } from './runner.js';
import { open_gateway_store } from './store_choice.js';

/** Messages of history each run is seeded with, unless `max_history_messages` says otherwise. */
export const DEFAULT_HISTORY_MESSAGES = 40;

/** What `run_platform_cli` has worked out before the gateway starts. */
export interface ServePlatformInput {
  definition: PlatformDefinition;
  values: Record<string, unknown>;
  io: PlatformCliIo;
  work_dir: string;
  state_dir: string;
  pairing: PairingStore;
  settings: PlatformSettings;
}

/** A log line on stderr: time, level, text, and the conversation when there is one. */
export function stderr_logger(io: PlatformCliIo): (entry: GatewayLogEntry) => void {
  return (entry) => {
    const where = entry.conversation_key === undefined ? '' : ` [${entry.conversation_key}]`;
    io.stderr.write(`${new Date().toISOString()} ${entry.level} ${entry.message}${where}\n`);
  };
}

/**
 * Builds the agent, its `SessionHost` (history capped at `max_history_messages`, default 40), the
 * JSONL store under `<state_dir>/<platform>`, the adapter and the bus, and runs them until a
 * signal has drained them. Resolves 0 once stopped; throws `GatewayConfigError` (or the bus's
 * `AccessPolicyError`) when it cannot start, having released what it made.
 */
export async function serve_platform(input: ServePlatformInput): Promise<number> {
  const { definition, values, io, settings } = input;
  const { platform } = definition;
  const log = stderr_logger(io);
  const { Agent, create_session_host, folder_trust, load_config } = await import('@lich/agent');
  const loaded = await load_config({
    work_dir: input.work_dir,
    ...(values.config === undefined ? {} : { config_path: String(values.config) }),
    env: io.env,
    flags: {
      ...(values.provider === undefined ? {} : { provider: String(values.provider) }),
      ...(values.model === undefined ? {} : { model: String(values.model) }),
      ...(values['base-url'] === undefined ? {} : { base_url: String(values['base-url']) }),
    },
  });
  if (!loaded.ok) throw new GatewayConfigError(loaded.error.message);
  for (const warning of loaded.warnings) log({ level: 'warn', message: warning });
  if (loaded.config.providers.length === 0) {
    throw new GatewayConfigError(
      'no model provider: set OPENAI_API_KEY or ANTHROPIC_API_KEY, start Ollama, or pass ' +
        '--base-url <url> --model <name> (lich init writes a config)',
    );
  }
  const platform_flags = Object.fromEntries(
    Object.keys(definition.options).map((name) => [name, values[name]]),
  ) as Record<string, string | boolean | undefined>;
  const adapter = await definition.make_adapter({
    flags: platform_flags,
    settings: settings.platform,
    env: io.env,
    state_dir: join(input.state_dir, platform),
    log,
  });
  const chosen = await open_gateway_store({
    url: settings.bus.store ?? (io.env.LICH_DATABASE_URL || undefined),
    platform,
    state_dir: input.state_dir,
    log,
    ...(settings.bus.retention_days === undefined
      ? {}
      : { retention_days: settings.bus.retention_days }),
  });
  const { store } = chosen;
  if (chosen.session_storage !== undefined) {
    log({ level: 'info', message: `conversations and sessions in ${chosen.where}` });
  }
  // a gateway never asks: the folder is trusted by --trust or an answer kept by lich trust, as
  // for lich off a terminal
  const trusted =
    values.trust === true ||
    (await folder_trust(loaded.config.work_dir, io.env)).state === 'trusted';
  const agent = new Agent({
    config: loaded.config,
    env: io.env,
    trusted,
    surface: 'chat',
    on_warning: (text) => log({ level: 'warn', message: text }),
    // the work dir is the bot's: no checkpoints unless the platform's section asks for them
    checkpoints: settings.bus.checkpoints === true,
    ...(chosen.budget_ledger === undefined ? {} : { budget_ledger: chosen.budget_ledger }),
  });
  const host = create_session_host({
    agent,
    approval_mode: 'default',
    history_limit: settings.bus.max_history_messages ?? DEFAULT_HISTORY_MESSAGES,
    // the bus follows sessions live and never replays: a short ring keeps 200 sessions small
    ring_events: 16,
    ring_bytes: 64 * 1024,
    // nodes in other folders carry each other's conversations: sessions are found by id
    scope: 'all',
    ...(chosen.session_storage === undefined ? {} : { storage: chosen.session_storage }),
    on_warning: (text) => log({ level: 'warn', message: text }),
  });
  let bus: GatewayBus;
  try {
    const { bus: bus_settings } = settings;
    const approvals = bus_settings.approvals_chat;
    const chat_target = (chat_id: string) => ({
      platform,
      account: '',
      chat_id,
      conversation_key: conversation_key_of(platform, chat_id),
    });
    bus = new GatewayBus({
      host,
      adapter,
      access: settings.access,
      pairing: input.pairing,
      store,
      ...(bus_settings.mode === undefined ? {} : { mode: bus_settings.mode }),
      ...(bus_settings.max_concurrency === undefined
        ? {}
        : { max_concurrency: bus_settings.max_concurrency }),
      ...(bus_settings.max_conversations === undefined
        ? {}
        : { max_conversations: bus_settings.max_conversations }),
      ...(bus_settings.collect_debounce_ms === undefined
        ? {}
        : { collect_debounce_ms: bus_settings.collect_debounce_ms }),
      ...(bus_settings.rate_limit === undefined ? {} : { rate_limit: bus_settings.rate_limit }),
      ...(approvals === undefined ? {} : { approvals_to: chat_target(approvals) }),
      ...(bus_settings.owner_chat === undefined
        ? {}
        : { owner_to: chat_target(bus_settings.owner_chat) }),
      // the owner runs the pairing command of the gateway that is running (S5)
      texts: { pairing: pairing_text_for(input.io.program ?? `lich-gateway-${platform}`) },
      on_log: log,
    });
  } catch (error) {
    await store.close();
    await host.shutdown({ deadline_ms: 0 });
    throw error;
  }
  for (const warning of bus.warnings) log({ level: 'warn', message: warning });
  let running: Awaited<ReturnType<typeof start_gateway>>;
  try {
    running = await start_gateway({
      bus,
      adapter,
      host,
      ...(settings.bus.drain_deadline_ms === undefined
        ? {}
        : { drain_deadline_ms: settings.bus.drain_deadline_ms }),
      on_log: log,
    });
  } catch (error) {
    // the adapter could not start (a port in use, a bad token): release what was made
    await adapter.close().catch(() => undefined);
    await bus.close().catch(() => undefined);
    await host.shutdown({ deadline_ms: 0 }).catch(() => undefined);
    throw error;
  }
  const stopped = await running.stopped;
  if (stopped.reason === 'lease_lost') return 1;
  if (stopped.aborted > 0) {
    log({
      level: 'warn',
      message: `${stopped.aborted} conversation(s) were cut at the deadline; they go on at the next start`,
    });
  }
  return 0;
}
