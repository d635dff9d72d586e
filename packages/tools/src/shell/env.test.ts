import { describe, expect, it } from 'vitest';
import {
  child_env,
  child_env_of,
  env_passthrough_of,
  mentioned_names,
  strip_url_credentials,
} from './env.js';

describe('child_env_of', () => {
  // the variables of finding X5: every one is a credential the old name filter let through
  const env = {
    PATH: '/usr/bin',
    HOME: '/home/me',
    LANG: 'C.UTF-8',
    LC_ALL: 'C',
    CI: 'true',
    OPENAI_API_KEY: 'sk-1',
    DATABASE_URL: 'postgres://app:ENV-PW-11@db.internal/prod',
    REDIS_URL: 'redis://:ENV-PW-12@cache:6379',
    SENTRY_DSN: 'https://ENV-PW-13@o1.ingest.sentry.io/1',
    HTTPS_PROXY: 'http://user:ENV-PW-14@proxy:3128',
    NPM_CONFIG__AUTH: 'ENV-PW-15',
    GH_PAT: 'ENV-PW-17',
    SSH_AUTH_SOCK: '/tmp/agent.sock',
    UNSET: undefined,
  };

  it('passes the base set only, with credentials cut out of URLs', () => {
    const { env: passed, dropped } = child_env_of({ env });
    expect(passed).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/me',
      LANG: 'C.UTF-8',
      LC_ALL: 'C',
      CI: 'true',
      HTTPS_PROXY: 'http://proxy:3128',
    });
    expect(JSON.stringify(passed)).not.toMatch(/ENV-PW/);
    expect(dropped).toEqual([
      'DATABASE_URL',
      'GH_PAT',
      'NPM_CONFIG__AUTH',
      'OPENAI_API_KEY',
      'REDIS_URL',
      'SENTRY_DSN',
      'SSH_AUTH_SOCK',
    ]);
  });

  it('adds the names passed through, exactly or by a prefix ending in *, as they are', () => {
    const { env: passed } = child_env_of({
      env,
      passthrough: ['DATABASE_URL', 'REDIS_*', 'gh_pat'],
    });
    expect(passed.DATABASE_URL).toBe(env.DATABASE_URL);
    expect(passed.REDIS_URL).toBe(env.REDIS_URL);
    expect(passed.GH_PAT).toBeUndefined();
  });

  it('never passes a socket variable unless listed and its socket is allowed', () => {
    expect(child_env_of({ env, passthrough: ['SSH_AUTH_SOCK'] }).env.SSH_AUTH_SOCK).toBeUndefined();
    const allowed = child_env_of({
      env,
      passthrough: ['SSH_AUTH_SOCK'],
      socket_allowed: (path) => path === '/tmp/agent.sock',
    });
    expect(allowed.env.SSH_AUTH_SOCK).toBe('/tmp/agent.sock');
  });

  it('does not touch its input and defaults to process.env', () => {
    const copy = { ...env };
    child_env({ env });
    expect(env).toEqual(copy);
    expect(child_env().PATH).toBe(process.env.PATH);
  });
});

describe('strip_url_credentials', () => {
  it('removes user and password from each URL, and nothing else', () => {
    expect(strip_url_credentials('http://u:p@proxy:3128, socks5://t@h:1 x@y')).toBe(
      'http://proxy:3128, socks5://h:1 x@y',
    );
    expect(strip_url_credentials('/usr/bin:/bin')).toBe('/usr/bin:/bin');
  });
});

describe('mentioned_names', () => {
  it('names the dropped variables a command refers to', () => {
    expect(
      mentioned_names(`psql "$DATABASE_URL"; echo \${REDIS_URL}; printenv GH`, [
        'DATABASE_URL',
        'REDIS_URL',
        'GH_PAT',
        'PWD',
      ]),
    ).toEqual(['DATABASE_URL', 'REDIS_URL']);
  });
});

describe('env_passthrough_of', () => {
  it('reads a string array and ignores anything else', () => {
    expect(env_passthrough_of({ env_passthrough: ['A', 1, 'B'] })).toEqual(['A', 'B']);
    expect(env_passthrough_of({ env_passthrough: 'A' })).toEqual([]);
    expect(env_passthrough_of({})).toEqual([]);
  });

  it('adds the sandbox config names', () => {
    expect(
      env_passthrough_of({ env_passthrough: ['A'], sandbox: { env_passthrough: ['B', 'A'] } }),
    ).toEqual(['A', 'B']);
  });
});
