import { describe, expect, it, vi } from 'vitest';
import { fetch_public_image, host_in_list } from './public_image.js';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

describe('host_in_list', () => {
  it('matches a host exactly, and *.domain its subdomains only', () => {
    expect(host_in_list('img.example.com', ['img.example.com'])).toBe(true);
    expect(host_in_list('a.example.com', ['*.example.com'])).toBe(true);
    expect(host_in_list('example.com', ['*.example.com'])).toBe(false);
    expect(host_in_list('evil-example.com', ['*.example.com'])).toBe(false);
  });
});

describe('fetch_public_image', () => {
  it('fetches from a listed host whose name resolves to a public address, at that address', async () => {
    const connect = vi.fn(async () => ({
      status: 200,
      headers: {},
      body: PNG,
      truncated: false,
    }));
    const taken = await fetch_public_image('https://img.example.com/a.png', {
      allowed_hosts: ['img.example.com'],
      max_bytes: 4096,
      resolve: async () => [{ address: '93.184.216.34', family: 4 }],
      connect,
    });
    expect(taken).toMatchObject({ ok: true, image: { media_type: 'image/png' } });
    expect(connect).toHaveBeenCalledWith(
      expect.objectContaining({ target: expect.objectContaining({ address: '93.184.216.34' }) }),
    );
  });

  it('refuses a listed name that resolves to a private address, and never connects', async () => {
    const connect = vi.fn();
    const taken = await fetch_public_image('https://img.example.com/a.png', {
      allowed_hosts: ['img.example.com'],
      max_bytes: 4096,
      resolve: async () => [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.7', family: 4 },
      ],
      connect,
    });
    expect(taken.ok).toBe(false);
    expect(!taken.ok && taken.error).toMatch(/img\.example\.com resolves to 10\.0\.0\.7/);
    expect(connect).not.toHaveBeenCalled();
  });

  it('refuses everything with no allowed host, and a host off the list, without resolving', async () => {
    const resolve = vi.fn();
    expect(
      await fetch_public_image('https://img.example.com/a.png', {
        allowed_hosts: [],
        max_bytes: 4096,
        resolve,
      }),
    ).toEqual({
      ok: false,
      error: 'pictures are not fetched from URLs here: send them as base64 data',
    });
    expect(
      await fetch_public_image('https://169.254.169.254/latest', {
        allowed_hosts: ['img.example.com'],
        max_bytes: 4096,
        resolve,
      }),
    ).toEqual({
      ok: false,
      error: 'pictures are not fetched from 169.254.169.254: it is not allowed',
    });
    expect(resolve).not.toHaveBeenCalled();
  });

  it('refuses a redirect and a body cut at the cap', async () => {
    const base = {
      allowed_hosts: ['img.example.com'],
      max_bytes: 10,
      resolve: async () => [{ address: '93.184.216.34', family: 4 as const }],
    };
    expect(
      await fetch_public_image('https://img.example.com/a.png', {
        ...base,
        connect: async () => ({
          status: 302,
          headers: {},
          body: Buffer.alloc(0),
          truncated: false,
        }),
      }),
    ).toEqual({
      ok: false,
      error: 'the picture could not be downloaded (HTTP 302; redirects are not followed)',
    });
    expect(
      await fetch_public_image('https://img.example.com/a.png', {
        ...base,
        connect: async () => ({
          status: 200,
          headers: {},
          body: PNG.subarray(0, 11),
          truncated: true,
        }),
      }),
    ).toEqual({ ok: false, error: 'the picture is over the limit of 10 B' });
  });
});
