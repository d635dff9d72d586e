/**
 * The variables every command gets, when the parent has them: what shells, terminals, locales
 * and the common toolchains need to build and test, and nothing that carries a credential by
 * nature. Anything else is passed only when named in `sandbox.env_passthrough`.
 */
export const BASE_ENV_NAMES: readonly string[] = Object.freeze([
  // the shell and the terminal
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'HOSTNAME',
  'TERM',
  'COLORTERM',
  'NO_COLOR',
  'FORCE_COLOR',
  'CLICOLOR',
  'CLICOLOR_FORCE',
  'EDITOR',
  'VISUAL',
  'PAGER',
  'CI',
  'DEBIAN_FRONTEND',
  // locale and time
  'LANG',
  'LANGUAGE',
  'TZ',
  // folders
  'TMPDIR',
  'TMP',
  'TEMP',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_CACHE_HOME',
  'XDG_STATE_HOME',
  'XDG_CONFIG_DIRS',
  'XDG_DATA_DIRS',
  // certificates
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'NODE_EXTRA_CA_CERTS',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
  // proxies (credentials in their URLs are dropped)
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'ALL_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'all_proxy',
  'no_proxy',
  // JavaScript
  'NODE_ENV',
  'NODE_OPTIONS',
  'NODE_PATH',
  'NVM_DIR',
  'NVM_BIN',
  'NVM_INC',
  'VOLTA_HOME',
  'FNM_DIR',
  'PNPM_HOME',
  'COREPACK_HOME',
  'BUN_INSTALL',
  'DENO_DIR',
  // Python
  'PYTHONPATH',
  'PYTHONHOME',
  'PYTHONDONTWRITEBYTECODE',
  'PYTHONUNBUFFERED',
  'VIRTUAL_ENV',
  'CONDA_PREFIX',
  'CONDA_DEFAULT_ENV',
  'PYENV_ROOT',
  'PYENV_VERSION',
  'PIPX_HOME',
  'POETRY_HOME',
  'UV_CACHE_DIR',
  // Go, Rust, JVM, Ruby, .NET, Android
  'GOPATH',
  'GOROOT',
  'GOBIN',
  'GOFLAGS',
  'GOCACHE',
  'GOMODCACHE',
  'GOPROXY',
  'GOPRIVATE',
  'GONOSUMDB',
  'GOTOOLCHAIN',
  'CGO_ENABLED',
  'CARGO_HOME',
  'CARGO_TARGET_DIR',
  'RUSTUP_HOME',
  'RUSTUP_TOOLCHAIN',
  'RUSTFLAGS',
  'JAVA_HOME',
  'GRADLE_USER_HOME',
  'MAVEN_HOME',
  'GEM_HOME',
  'GEM_PATH',
  'RBENV_ROOT',
  'DOTNET_ROOT',
  'ANDROID_HOME',
  'ANDROID_SDK_ROOT',
  // C and C++ builds
  'CC',
  'CXX',
  'CFLAGS',
  'CXXFLAGS',
  'CPPFLAGS',
  'LDFLAGS',
  'LD_LIBRARY_PATH',
  'PKG_CONFIG_PATH',
  'CMAKE_PREFIX_PATH',
  'MAKEFLAGS',
  // git identity
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
]);

const BASE = new Set(BASE_ENV_NAMES);

/** Locale categories: `LC_ALL`, `LC_CTYPE`… */
function is_base(name: string): boolean {
  return BASE.has(name) || /^LC_[A-Z_]+$/.test(name);
}

/** A variable that names a unix socket (`SSH_AUTH_SOCK`, `DOCKER_SOCK`…). */
export function is_socket_variable(name: string): boolean {
  return /_SOCK$/i.test(name) || /_SOCKET$/i.test(name);
}

/**
 * `value` with the user and password removed from every URL in it
 * (`http://user:pw@proxy:3128` → `http://proxy:3128`).
 *
 * Contract: pure.
 */
export function strip_url_credentials(value: string): string {
  return value.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^/\s@?#]*@/gi, '$1');
}

function passthrough_matcher(names: readonly string[]): (name: string) => boolean {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const name of names) {
    if (name.endsWith('*')) prefixes.push(name.slice(0, -1));
    else exact.add(name);
  }
  return (name) => exact.has(name) || prefixes.some((prefix) => name.startsWith(prefix));
}

/** What `child_env` passes, and the names it kept back. */
export interface ChildEnv {
  env: NodeJS.ProcessEnv;
  /** Names of the parent's variables not passed, sorted (for the `[sandbox]` line). */
  dropped: string[];
}

/**
 * The environment of a command a tool runs: the base set (`BASE_ENV_NAMES`, `LC_*`) of `env`
 * (the parent's by default), with credentials removed from URLs in their values, plus the names
 * listed in `passthrough` (exact, or a prefix ending in `*`), passed as they are.
 *
 * Contract: pure; never throws; never mutates `env`. A variable naming a unix socket (`*_SOCK`,
 * `*_SOCKET`: `SSH_AUTH_SOCK`) is never passed unless listed in `passthrough` and
 * `socket_allowed(value)` says its socket may be reached; without `socket_allowed`, never.
 */
export function child_env_of(
  options: {
    env?: NodeJS.ProcessEnv;
    passthrough?: readonly string[];
    socket_allowed?: (path: string) => boolean;
  } = {},
): ChildEnv {
  const source = options.env ?? process.env;
  const listed = passthrough_matcher(options.passthrough ?? []);
  const env: NodeJS.ProcessEnv = {};
  const dropped: string[] = [];
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined) continue;
    if (is_socket_variable(name)) {
      if (listed(name) && options.socket_allowed?.(value) === true) env[name] = value;
      else dropped.push(name);
      continue;
    }
    if (listed(name)) env[name] = value;
    else if (is_base(name)) env[name] = strip_url_credentials(value);
    else dropped.push(name);
  }
  return { env, dropped: dropped.sort() };
}

/** `child_env_of(options).env`. */
export function child_env(
  options: { env?: NodeJS.ProcessEnv; passthrough?: readonly string[] } = {},
): NodeJS.ProcessEnv {
  return child_env_of(options).env;
}

/**
 * Reads `env_passthrough` from a tool context: the sandbox config's (`context.sandbox`) and the
 * older top-level `context.env_passthrough`, together.
 *
 * Contract: never throws; anything but an array of strings counts as none; non-string entries
 * are ignored.
 */
export function env_passthrough_of(context: { [key: string]: unknown }): string[] {
  const names: string[] = [];
  for (const value of [
    context.env_passthrough,
    (context.sandbox as { config?: { env_passthrough?: unknown }; env_passthrough?: unknown })
      ?.config?.env_passthrough,
    (context.sandbox as { env_passthrough?: unknown } | undefined)?.env_passthrough,
  ]) {
    if (Array.isArray(value)) {
      for (const entry of value) if (typeof entry === 'string') names.push(entry);
    }
  }
  return [...new Set(names)];
}

/**
 * The names of `dropped` that `command` mentions (`$NAME`, `${NAME}`, `printenv NAME`,
 * `process.env.NAME`…): what the `[sandbox]` line names when a command looked for a variable it
 * did not get.
 *
 * Contract: pure.
 */
export function mentioned_names(command: string, dropped: readonly string[]): string[] {
  const words = new Set(command.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []);
  return dropped.filter((name) => !SHELL_OWN.has(name) && name.length > 2 && words.has(name));
}

/** Variables bash sets itself: never worth a note. */
const SHELL_OWN = new Set(['PWD', 'OLDPWD', 'SHLVL', '_', 'LICH_RUN_ID']);
