import { homedir } from 'node:os';
import { basename } from 'node:path';
import { entry_path } from './deny_read.js';
import type { PreparedCommand } from './sandbox.js';
import type { SandboxConfig } from './sandbox_config.js';

const READ_ONLY_NOTE = /Read-only file system|EROFS/;
const NETWORK_NOTE =
  /Could not resolve host|Temporary failure in name resolution|Name or service not known|Network is unreachable|ENETUNREACH|EAI_AGAIN|ENOTFOUND|getaddrinfo|Connection refused|ECONNREFUSED|Couldn't connect to server|Failed to connect/;
/** What programs print when the seccomp filter refuses a unix socket (`EAFNOSUPPORT`). */
const UNIX_SOCKET_NOTE =
  /Address family not supported|EAFNOSUPPORT|Can't create UNIX socket \(97\)|\[Errno 97\]/;

/** The forms a path may take in a command or its output: absolute, `~/…`, `$HOME/…`. */
function spellings(path: string): string[] {
  const home = homedir();
  const forms = [path];
  if (path === home || path.startsWith(`${home}/`)) {
    const rest = path.slice(home.length);
    forms.push(`~${rest}`, `$HOME${rest}`, `\${HOME}${rest}`);
  }
  return forms;
}

/**
 * The `[sandbox]` lines a command's result adds after its output: the unsandboxed warning, and,
 * for a sandboxed command, one line for each way it ran into the sandbox, saying how to allow it:
 * a refused write (`sandbox.writable`), a masked credential store named by the command or its
 * output (`sandbox.allow_read`), a refused unix socket (`sandbox.allow_unix_sockets`), a refused
 * host or connection (`sandbox.network`).
 *
 * Contract: pure but for reading the home folder's path; never throws.
 */
export function sandbox_notes(
  config: Readonly<SandboxConfig>,
  prepared: PreparedCommand,
  output: string,
): string[] {
  const lines: string[] = [];
  if (prepared.warning !== undefined) lines.push(prepared.warning);
  if (prepared.sandbox === 'none') return lines;
  if (
    READ_ONLY_NOTE.test(output) ||
    (prepared.sandbox === 'sandbox-exec' && /Operation not permitted/.test(output))
  ) {
    lines.push(
      '[sandbox] The sandbox refused a write outside the work dir (or to .lich/ or what git runs: hooks, configs). ' +
        'To allow a folder, add it to sandbox.writable in .lich/config.json.',
    );
  }
  const touched = (prepared.sandboxed?.masked ?? []).filter((mask) =>
    [mask.entry, ...spellings(mask.path), ...spellings(entry_path(mask.entry, '/'))].some(
      (form) => prepared.script.includes(form) || output.includes(form),
    ),
  );
  if (touched.length > 0) {
    const names = touched.map((mask) => mask.entry).join(', ');
    lines.push(
      `[sandbox] ${names} ${touched.length === 1 ? 'is' : 'are'} masked from commands (credentials): commands see ${touched.length === 1 ? 'it' : 'them'} empty. ` +
        'To let commands read one, add it to sandbox.allow_read in .lich/config.json.',
    );
  }
  const sockets = prepared.sandboxed;
  const masked_socket =
    sockets?.unix_sockets === 'masks' &&
    /Connection refused|ECONNREFUSED/.test(output) &&
    sockets.socket_masks.some((path) => output.includes(basename(path)));
  if ((sockets?.unix_sockets === 'seccomp' && UNIX_SOCKET_NOTE.test(output)) || masked_socket) {
    lines.push(
      '[sandbox] Commands may not use unix sockets but those sandbox.allow_unix_sockets lists (local services such as databases, docker or an ssh agent are out of reach). ' +
        'To allow one, add its path to sandbox.allow_unix_sockets in .lich/config.json.',
    );
  }
  const stopped = prepared.sandboxed?.limit;
  if (
    stopped !== undefined &&
    /fork: retry|Resource temporarily unavailable|Cannot fork/.test(output)
  ) {
    lines.push(
      `[sandbox] The command ran into the limit of ${stopped.max} processes. To raise it, set sandbox.max_processes in .lich/config.json.`,
    );
  }
  const hosts = Array.isArray(config.network) ? config.network : undefined;
  const refused = prepared.proxy === undefined ? [] : [...prepared.proxy.refused];
  if (refused.length > 0) {
    lines.push(
      `[sandbox] The sandbox proxy refused ${refused.join(', ')}: not in sandbox.network (${hosts?.join(', ')}). To allow a host, add it to sandbox.network in .lich/config.json.`,
    );
  } else if (config.network !== true && NETWORK_NOTE.test(output)) {
    lines.push(
      hosts !== undefined
        ? `[sandbox] Commands reach only ${hosts.join(', ')}, through the proxy in HTTPS_PROXY and HTTP_PROXY; other connections fail. To allow more, add hosts to sandbox.network in .lich/config.json.`
        : '[sandbox] The network is off for commands. To allow it, set sandbox.network to true, or to a list of hosts, in .lich/config.json.',
    );
  }
  return lines;
}
