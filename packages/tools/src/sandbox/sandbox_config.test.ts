import { describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX_CONFIG, read_sandbox_config } from './sandbox_config.js';

describe('read_sandbox_config', () => {
  it('fills the defaults: auto, no network, nothing more writable', () => {
    expect(read_sandbox_config(undefined)).toEqual(DEFAULT_SANDBOX_CONFIG);
    expect(read_sandbox_config({})).toEqual({ mode: 'auto', network: false, writable: [] });
  });

  it('reads every field', () => {
    expect(
      read_sandbox_config({
        mode: 'required',
        network: ['registry.npmjs.org'],
        writable: ['~/.npm'],
      }),
    ).toEqual({ mode: 'required', network: ['registry.npmjs.org'], writable: ['~/.npm'] });
    expect(read_sandbox_config({ mode: 'off', network: true }).network).toBe(true);
  });

  it('never reads a bad value as something weaker', () => {
    expect(read_sandbox_config({ mode: 'of', network: 'yes', writable: [1, '', 'x'] })).toEqual({
      mode: 'auto',
      network: false,
      writable: ['x'],
    });
  });
});
