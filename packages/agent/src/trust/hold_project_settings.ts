import { isDeepStrictEqual } from 'node:util';
import { BUILT_IN_PLUGIN_NAMES } from '../load_plugins.js';

/**
 * What a repository's config file set that must wait for the folder's trust, computed from raw
 * layer values (before defaults). `values` holds, per config key, the raw value the key takes in
 * an untrusted folder (`undefined`: the key's default); `mcp_servers` names the servers to drop
 * (`null`) or to give back the user's own entry; `lines` says what was held back, one per item.
 */
export interface ProjectHold {
  values: Record<string, unknown>;
  mcp_servers: Record<string, unknown>;
  /** The `base_url`s of the file's providers that are not on this machine. */
  provider_urls: string[];
  lines: string[];
}

type Raw = Record<string, unknown>;

function object_of(value: unknown): Raw | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Raw)
    : undefined;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item) => typeof item === 'string') : [];
}

/** The approval modes from loosest to strictest. */
const MODE_RANK: Readonly<Record<string, number>> = { yolo: 0, auto_edit: 1, default: 2, plan: 3 };
const SANDBOX_MODE_RANK: Readonly<Record<string, number>> = { off: 0, auto: 1, required: 2 };
const SANDBOX_DEFAULTS: Raw = {
  mode: 'auto',
  network: false,
  writable: [],
  env_passthrough: [],
  allow_unix_sockets: [],
  deny_read: [],
  allow_read: [],
  max_processes: 1024,
};
/** Sandbox lists that let commands do more: a project may only take entries out. */
const WIDENING_LISTS = ['writable', 'env_passthrough', 'allow_unix_sockets', 'allow_read'];

/** Whether a URL points at this machine (a local model server the person runs). */
export function is_loopback_url(url: string): boolean {
  const host = /^(?:https?:\/\/)?(\[[^\]]+\]|[^/:?#]+)/i.exec(url)?.[1]?.toLowerCase() ?? '';
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function hold_list(hold: ProjectHold, before: unknown, project: unknown, what: string): unknown {
  const earlier = strings(before);
  const added = strings(project).filter((item) => !earlier.includes(item));
  if (added.length === 0) return project;
  hold.lines.push(`${what} ${added.join(', ')}`);
  return strings(project).filter((item) => earlier.includes(item));
}

function hold_plugins(hold: ProjectHold, before: unknown, project: unknown): void {
  const earlier = strings(before);
  const code = strings(project).filter(
    (name) => !BUILT_IN_PLUGIN_NAMES.includes(name) && !earlier.includes(name),
  );
  if (code.length === 0) return;
  hold.lines.push(`plugins ${code.join(', ')} (code run in-process)`);
  hold.values.plugins = before;
}

function hold_mcp_servers(hold: ProjectHold, before: unknown, project: unknown): void {
  const earlier = object_of(before) ?? {};
  for (const [name, entry] of Object.entries(object_of(project) ?? {})) {
    const own = earlier[name];
    if (isDeepStrictEqual(own, entry)) continue;
    const server = object_of(entry) ?? {};
    if (own !== undefined) {
      hold.lines.push(`MCP server ${name} (in place of your own)`);
      hold.mcp_servers[name] = own;
    } else if (server.enabled === false) {
      // a server the file keeps switched off starts nothing
    } else if (typeof server.command === 'string') {
      hold.lines.push(`MCP server ${name} (starts ${server.command})`);
      hold.mcp_servers[name] = null;
    } else if (JSON.stringify(server).includes('${')) {
      // `${VAR}` in its headers would send the person's environment to the repository's URL
      hold.lines.push(`MCP server ${name} (sends environment variables to ${String(server.url)})`);
      hold.mcp_servers[name] = null;
    }
  }
}

function hold_permissions(hold: ProjectHold, before: unknown, project: unknown): void {
  const earlier = object_of(before) ?? {};
  const given = object_of(project) ?? {};
  const kept: Raw = { ...given };
  let held = false;
  if (given.mode !== undefined) {
    const floor = MODE_RANK[String(earlier.mode ?? 'default')] ?? 2;
    if ((MODE_RANK[String(given.mode)] ?? 0) < floor) {
      hold.lines.push(`permissions.mode ${String(given.mode)}`);
      delete kept.mode;
      held = true;
    }
  }
  const allow = strings(given.allow).filter((rule) => !strings(earlier.allow).includes(rule));
  if (allow.length > 0) {
    hold.lines.push(`permissions.allow ${allow.join(', ')}`);
    delete kept.allow;
    held = true;
  }
  if (!held) return;
  // the deny and ask rules (and a stricter mode) still count: they only take power away
  const mode = kept.mode ?? earlier.mode;
  hold.values.permissions = {
    ...(mode === undefined ? {} : { mode }),
    allow: strings(earlier.allow),
    ask: [...new Set([...strings(earlier.ask), ...strings(kept.ask)])],
    deny: [...new Set([...strings(earlier.deny), ...strings(kept.deny)])],
  };
}

function network_within(project: unknown, before: unknown): boolean {
  if (project === false || before === true) return true;
  if (project === true) return false;
  return Array.isArray(project) && Array.isArray(before)
    ? strings(project).every((host) => strings(before).includes(host))
    : false;
}

function hold_sandbox(hold: ProjectHold, before: unknown, project: unknown): void {
  const earlier: Raw = { ...SANDBOX_DEFAULTS, ...(object_of(before) ?? {}) };
  // the file's sandbox replaces the earlier one whole, so a field it leaves out is at its default
  // (which may be looser than the user's); untrusted, fields start from the earlier
  const written = object_of(project) ?? {};
  const given: Raw = { ...SANDBOX_DEFAULTS, ...written };
  const kept: Raw = { ...earlier };
  let held = false;
  const held_field = (text: string) => {
    const field = text.split(' ')[0] as string;
    hold.lines.push(`sandbox.${text}${field in written ? '' : ' (left out: the default)'}`);
    held = true;
  };
  for (const [field, value] of Object.entries(given)) {
    const prior = earlier[field];
    if (field === 'mode') {
      if ((SANDBOX_MODE_RANK[String(value)] ?? 0) < (SANDBOX_MODE_RANK[String(prior)] ?? 1)) {
        held_field(`mode ${String(value)}`);
      } else kept.mode = value;
    } else if (field === 'network') {
      if (network_within(value, prior)) kept.network = value;
      else held_field(`network ${JSON.stringify(value)}`);
    } else if (WIDENING_LISTS.includes(field)) {
      const lines = hold.lines.length;
      kept[field] = hold_list(hold, prior, value, `sandbox.${field}`);
      if (hold.lines.length > lines) held = true;
    } else if (field === 'deny_read') {
      kept.deny_read = [...new Set([...strings(prior), ...strings(value)])];
    } else if (field === 'max_processes') {
      const limit = Number(value);
      const prior_limit = Number(prior);
      // 0 is no limit: the loosest, unless the earlier layers already said so
      const within =
        limit === prior_limit || (limit !== 0 && (prior_limit === 0 || limit <= prior_limit));
      if (within) kept.max_processes = value;
      else held_field(`max_processes ${limit}`);
    }
  }
  if (held) hold.values.sandbox = kept;
}

function hold_budget(hold: ProjectHold, before: unknown, project: unknown): void {
  const earlier = object_of(before) ?? {};
  const kept: Raw = { ...earlier };
  let held = false;
  for (const [field, value] of Object.entries(object_of(project) ?? {})) {
    const prior = earlier[field];
    if (typeof prior === 'number' && typeof value === 'number' && value > prior) {
      hold.lines.push(`budget.${field} ${value} (above your ${prior})`);
      held = true;
    } else kept[field] = value;
  }
  if (held) hold.values.budget = kept;
}

function hold_prices(hold: ProjectHold, before: unknown, project: unknown): void {
  const earlier = object_of(before) ?? {};
  const changed = Object.entries(object_of(project) ?? {}).filter(
    ([model, price]) => !isDeepStrictEqual(earlier[model], price),
  );
  if (changed.length === 0) return;
  // a lower price would let more spending past the budget
  hold.lines.push(`prices for ${changed.map(([model]) => model).join(', ')}`);
  hold.values.prices = before;
}

function hold_providers(hold: ProjectHold, project: unknown): void {
  const away = (Array.isArray(project) ? project : []).filter((entry) => {
    const url = object_of(entry)?.base_url;
    return typeof url === 'string' && !is_loopback_url(url);
  });
  if (away.length === 0) return;
  const urls = away.map((entry) => String((entry as Raw).base_url));
  hold.lines.push(`providers at ${urls.join(', ')} (your API keys would go there)`);
  hold.provider_urls = urls;
}

/**
 * What the repository's config file (`project`, raw) may not do until the folder is trusted,
 * given the merged raw values of the layers before it (`before`: defaults and the user's file).
 * Pure. Held back: plugins that are code (not built in), stdio MCP servers, HTTP ones that send
 * `${VAR}`s and any that replace the user's own, `permissions.allow` rules and a looser
 * `permissions.mode`, a looser sandbox (mode, network, writable, env_passthrough,
 * allow_unix_sockets, allow_read, max_processes), the deprecated top-level `env_passthrough`,
 * a higher budget, price overrides, and providers whose `base_url` is not this machine (the
 * person's keys would go there). Kept: everything that only takes power away (deny and ask rules,
 * a stricter mode or sandbox, a lower budget) and every other key.
 */
export function hold_project_settings(before: Raw, project: Raw): ProjectHold {
  const hold: ProjectHold = { values: {}, mcp_servers: {}, provider_urls: [], lines: [] };
  if (project.plugins !== undefined) hold_plugins(hold, before.plugins, project.plugins);
  if (project.mcp_servers !== undefined) {
    hold_mcp_servers(hold, before.mcp_servers, project.mcp_servers);
  }
  if (project.permissions !== undefined) {
    hold_permissions(hold, before.permissions, project.permissions);
  }
  if (project.sandbox !== undefined) hold_sandbox(hold, before.sandbox, project.sandbox);
  if (project.env_passthrough !== undefined) {
    const lines = hold.lines.length;
    const kept = hold_list(
      hold,
      before.env_passthrough,
      project.env_passthrough,
      'env_passthrough',
    );
    if (hold.lines.length > lines) hold.values.env_passthrough = kept;
  }
  if (project.budget !== undefined) hold_budget(hold, before.budget, project.budget);
  if (project.prices !== undefined) hold_prices(hold, before.prices, project.prices);
  if (project.providers !== undefined) hold_providers(hold, project.providers);
  return hold;
}
