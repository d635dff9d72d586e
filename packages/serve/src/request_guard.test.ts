import { describe, expect, it } from 'vitest';
import { guard_request } from './request_guard.js';

const PORT = 4123;

describe('guard_request', () => {
  it('takes exactly the loopback Host names with the port', () => {
    for (const host of [
      `127.0.0.1:${PORT}`,
      `localhost:${PORT}`,
      `[::1]:${PORT}`,
      `LOCALHOST:${PORT}`,
    ]) {
      expect(guard_request({ host }, '/rpc', { port: PORT })).toBeNull();
    }
    for (const host of [
      'evil.example',
      `evil.example:${PORT}`,
      `127.0.0.1:${PORT + 1}`,
      '127.0.0.1',
      `127.0.0.2:${PORT}`,
      `127.0.0.1.nip.io:${PORT}`,
      `localhost.evil.example:${PORT}`,
      '',
    ]) {
      expect(guard_request({ host }, '/rpc', { port: PORT })?.status, host).toBe(403);
    }
    expect(guard_request({}, '/rpc', { port: PORT })?.status).toBe(403);
  });

  it('refuses any Origin not on the list, null included; a missing one passes this check', () => {
    const host = `127.0.0.1:${PORT}`;
    const options = { port: PORT, allow_origins: ['http://localhost:5173/'] };
    expect(guard_request({ host, origin: 'http://localhost:5173' }, '/rpc', options)).toBeNull();
    expect(guard_request({ host, origin: 'http://evil.example' }, '/rpc', options)?.status).toBe(
      403,
    );
    expect(guard_request({ host, origin: 'null' }, '/rpc', options)?.status).toBe(403);
    expect(
      guard_request({ host, origin: 'http://localhost:5173' }, '/rpc', { port: PORT })?.status,
    ).toBe(403);
    expect(guard_request({ host }, '/rpc', { port: PORT })).toBeNull();
  });

  it('refuses a query string', () => {
    const host = `127.0.0.1:${PORT}`;
    expect(guard_request({ host }, '/rpc?token=abc', { port: PORT })?.status).toBe(400);
  });

  it('with a remote bind takes its address, and on a wildcard any IP literal but never a name', () => {
    expect(
      guard_request({ host: `10.0.0.5:${PORT}` }, '/', { port: PORT, remote_host: '10.0.0.5' }),
    ).toBeNull();
    expect(
      guard_request({ host: `10.0.0.6:${PORT}` }, '/', { port: PORT, remote_host: '10.0.0.5' })
        ?.status,
    ).toBe(403);
    const wildcard = { port: PORT, remote_host: '0.0.0.0' };
    expect(guard_request({ host: `192.168.1.9:${PORT}` }, '/', wildcard)).toBeNull();
    expect(guard_request({ host: `[fe80::1]:${PORT}` }, '/', wildcard)).toBeNull();
    expect(guard_request({ host: `evil.example:${PORT}` }, '/', wildcard)?.status).toBe(403);
  });
});
