import { describe, expect, it } from 'vitest';
import { child_env, env_passthrough_of } from './env.js';

describe('child_env', () => {
  const env = {
    PATH: '/usr/bin',
    HOME: '/home/me',
    OPENAI_API_KEY: 'sk-1',
    github_token: 'ghp',
    AWS_SECRET_ACCESS_KEY: 'x',
    DB_PASSWORD: 'pw',
    MonkeyBusiness: 'contains key in any case',
    UNSET: undefined,
  };

  it('drops every variable whose name contains KEY, TOKEN, SECRET or PASSWORD', () => {
    expect(child_env({ env })).toEqual({ PATH: '/usr/bin', HOME: '/home/me' });
  });

  it('keeps the names passed through, exactly as spelled', () => {
    const result = child_env({ env, passthrough: ['OPENAI_API_KEY', 'db_password'] });
    expect(result.OPENAI_API_KEY).toBe('sk-1');
    expect(result.DB_PASSWORD).toBeUndefined();
  });

  it('does not touch its input and defaults to process.env', () => {
    const copy = { ...env };
    child_env({ env });
    expect(env).toEqual(copy);
    expect(child_env().PATH).toBe(process.env.PATH);
  });
});

describe('env_passthrough_of', () => {
  it('reads a string array and ignores anything else', () => {
    expect(env_passthrough_of({ env_passthrough: ['A', 1, 'B'] })).toEqual(['A', 'B']);
    expect(env_passthrough_of({ env_passthrough: 'A' })).toEqual([]);
    expect(env_passthrough_of({})).toEqual([]);
  });
});
