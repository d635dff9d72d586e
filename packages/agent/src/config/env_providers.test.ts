import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ollama_base_url, probe_ollama } from './env_providers.js';

let server: Server;
let base_url: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/ok/api/tags') {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ models: [{ name: 'llama3.2' }, { name: 'qwen2.5' }, {}] }));
    } else if (request.url === '/broken/api/tags') {
      response.statusCode = 500;
      response.end('nope');
    } else if (request.url === '/garbage/api/tags') {
      response.end('<html>');
    }
    // any other path stalls until the client gives up
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base_url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('probe_ollama', () => {
  it('lists the model names an Ollama server offers', async () => {
    expect(await probe_ollama(`${base_url}/ok`)).toEqual(['llama3.2', 'qwen2.5']);
  });

  it('answers null for an error status, a body that is not JSON, silence and a closed port', async () => {
    expect(await probe_ollama(`${base_url}/broken`)).toBeNull();
    expect(await probe_ollama(`${base_url}/garbage`)).toBeNull();
    const started = Date.now();
    expect(await probe_ollama(`${base_url}/stall`, { timeout_ms: 100 })).toBeNull();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await probe_ollama('http://127.0.0.1:1')).toBeNull();
  });
});

describe('ollama_base_url', () => {
  it('adds a scheme and the default port, and maps 0.0.0.0 to loopback', () => {
    expect(ollama_base_url(undefined)).toBe('http://127.0.0.1:11434');
    expect(ollama_base_url('0.0.0.0')).toBe('http://127.0.0.1:11434');
    expect(ollama_base_url('example.test:8080')).toBe('http://example.test:8080');
  });
});
