import { describe, expect, it } from 'vitest';
import { host_allowed, split_host_port } from './sandbox_proxy.js';

describe('host_allowed', () => {
  const list = ['registry.npmjs.org', '*.github.com', '127.0.0.1:8080', 'Example.ORG.'];

  it('allows listed hosts, wildcard subdomains and listed ports', () => {
    expect(host_allowed('registry.npmjs.org', 443, list)).toBe(true);
    expect(host_allowed('REGISTRY.npmjs.org.', 80, list)).toBe(true);
    expect(host_allowed('api.github.com', 443, list)).toBe(true);
    expect(host_allowed('codeload.eu.github.com', 443, list)).toBe(true);
    expect(host_allowed('127.0.0.1', 8080, list)).toBe(true);
    expect(host_allowed('example.org', 443, list)).toBe(true);
  });

  it('refuses the rest, including look-alikes', () => {
    expect(host_allowed('github.com', 443, list)).toBe(false);
    expect(host_allowed('evilgithub.com', 443, list)).toBe(false);
    expect(host_allowed('registry.npmjs.org.evil.com', 443, list)).toBe(false);
    expect(host_allowed('127.0.0.1', 8081, list)).toBe(false);
    expect(host_allowed('localhost', 8080, list)).toBe(false);
    expect(host_allowed('anything', 443, [])).toBe(false);
  });
});

describe('split_host_port', () => {
  it('reads host, port and IPv6 literals', () => {
    expect(split_host_port('Example.com:8443', 443)).toEqual({ host: 'example.com', port: 8443 });
    expect(split_host_port('example.com', 443)).toEqual({ host: 'example.com', port: 443 });
    expect(split_host_port('[::1]:80', 443)).toEqual({ host: '::1', port: 80 });
    expect(split_host_port('a:b:c', 443)).toBeUndefined();
    expect(split_host_port('host:70000', 443)).toBeUndefined();
  });
});
