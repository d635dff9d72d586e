import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { download_image } from './download_image.js';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

let server: Server;
let host: string;
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    hits.push(request.url ?? '');
    if (request.url === '/dot.png') response.writeHead(200).end(PNG);
    else if (request.url === '/big-declared') {
      response.writeHead(200, { 'content-length': '100000' }).end(Buffer.alloc(100000));
    } else if (request.url === '/big-chunked') {
      response.writeHead(200);
      for (let index = 0; index < 50; index += 1) response.write(Buffer.alloc(1000, 1));
      response.end();
    } else if (request.url === '/moved') {
      response.writeHead(302, { location: 'http://10.0.0.1/secret.png' }).end();
    } else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('download_image', () => {
  const options = () => ({ allowed_hosts: [host], max_bytes: 4096 });

  it('downloads a picture from an allowed host', async () => {
    const taken = await download_image(`http://${host}/dot.png`, { ...options(), name: 'dot.png' });
    expect(taken).toMatchObject({
      ok: true,
      image: { media_type: 'image/png', name: 'dot.png', width: 1, height: 1 },
    });
  });

  it('fetches nothing from another host, nor when the declared size is over the cap', async () => {
    hits.length = 0;
    expect(
      await download_image(`http://localhost:${host.split(':')[1]}/dot.png`, options()),
    ).toEqual({ ok: false, error: `pictures are taken only from ${host}` });
    expect(
      await download_image(`http://${host}/dot.png`, { ...options(), declared_bytes: 5000 }),
    ).toEqual({ ok: false, error: 'the picture is 4.9 KB, over the limit of 4 KB' });
    expect(hits).toEqual([]);
  });

  it('refuses a body over the cap by its length, and by counting when there is none', async () => {
    expect(await download_image(`http://${host}/big-declared`, options())).toEqual({
      ok: false,
      error: 'the picture is 97.7 KB, over the limit of 4 KB',
    });
    expect(await download_image(`http://${host}/big-chunked`, options())).toEqual({
      ok: false,
      error: 'the picture is over the limit of 4 KB',
    });
  });

  it('follows no redirect, and says an HTTP error without the URL', async () => {
    expect(await download_image(`http://${host}/moved`, options())).toEqual({
      ok: false,
      error: 'the picture could not be downloaded',
    });
    expect(await download_image(`http://${host}/gone`, options())).toEqual({
      ok: false,
      error: 'the picture could not be downloaded (HTTP 404)',
    });
  });
});
