import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_PROCESSES } from './process_limit.js';
import { DEFAULT_SANDBOX_CONFIG, read_sandbox_config } from './sandbox_config.js';

const DEFAULTS = {
  mode: 'auto',
  network: false,
  writable: [],
  env_passthrough: [],
  allow_unix_sockets: [],
  deny_read: [],
  allow_read: [],
  max_processes: DEFAULT_MAX_PROCESSES,
};

describe('read_sandbox_config', () => {
  it('fills the defaults: auto, no network, nothing more writable, no socket, a process limit', () => {
    expect(read_sandbox_config(undefined)).toEqual(DEFAULT_SANDBOX_CONFIG);
    expect(read_sandbox_config({})).toEqual(DEFAULTS);
  });

  it('reads every field', () => {
    expect(
      read_sandbox_config({
        mode: 'required',
        network: ['registry.npmjs.org'],
        writable: ['~/.npm'],
        env_passthrough: ['DATABASE_URL'],
        allow_unix_sockets: ['/var/run/docker.sock'],
        deny_read: ['~/secrets'],
        allow_read: ['~/.npmrc'],
        max_processes: 200,
      }),
    ).toEqual({
      mode: 'required',
      network: ['registry.npmjs.org'],
      writable: ['~/.npm'],
      env_passthrough: ['DATABASE_URL'],
      allow_unix_sockets: ['/var/run/docker.sock'],
      deny_read: ['~/secrets'],
      allow_read: ['~/.npmrc'],
      max_processes: 200,
    });
    expect(read_sandbox_config({ mode: 'off', network: true }).network).toBe(true);
  });

  it('never reads a bad value as something weaker', () => {
    expect(
      read_sandbox_config({
        mode: 'of',
        network: 'yes',
        writable: [1, '', 'x'],
        max_processes: -1,
        allow_unix_sockets: 'all',
      }),
    ).toEqual({ ...DEFAULTS, writable: ['x'] });
  });
});
