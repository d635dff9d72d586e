import type { IncomingMessage } from 'node:http';
import { Deduper } from '@lich/gateway';
import { signed_headers } from './standard_webhooks.js';

/** How replies are POSTed to the operator's callback URL. */
export interface CallbackSenderOptions {
  /** `http(s)://…`: where replies go. */
  url: string;
  /** The signing key (the decoded `whsec_` secret). */
  key: Buffer;
  /** Attempts per delivery (default 5). */
  attempts?: number;
  /** The first retry's delay; doubled each time (default 500 ms; a `retry-after` up to 30 s wins). */
  backoff_ms?: number;
  /** One attempt's time limit (default 10 s). */
  timeout_ms?: number;
}

/** The answer of one attempt: a status, or a network failure (status 0). */
interface Attempt {
  status: number;
  retry_after_ms: number | null;
  error?: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function retry_after(response: IncomingMessage): number | null {
  const value = response.headers['retry-after'];
  const seconds = Number(Array.isArray(value) ? value[0] : value);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, 30_000) : null;
}

/**
 * Delivers signed JSON to the callback URL: each delivery is one Standard Webhooks message
 * (`webhook-id` = its id, a fresh timestamp and signature per attempt).
 *
 * Contract: retries a network failure, a timeout, 408, 429 and 5xx with doubling backoff (a
 * `retry-after` is honoured up to 30 s), up to `attempts`; any other status is final; resolves
 * true once a 2xx came, false when it gave up (never rejects); an id delivered once is never
 * POSTed again, and concurrent deliveries of one id share one attempt sequence.
 */
export class CallbackSender {
  readonly url: URL;
  readonly #options: CallbackSenderOptions;
  readonly #delivered = new Deduper({ ttl_ms: 24 * 60 * 60_000 });
  readonly #in_flight = new Map<string, Promise<boolean>>();

  constructor(options: CallbackSenderOptions) {
    this.url = new URL(options.url);
    if (this.url.protocol !== 'http:' && this.url.protocol !== 'https:') {
      throw new Error(`the callback URL must be http or https: ${options.url}`);
    }
    this.#options = options;
  }

  deliver(id: string, body: object): Promise<boolean> {
    if (this.#delivered.has(id)) return Promise.resolve(true);
    const running = this.#in_flight.get(id);
    if (running !== undefined) return running;
    const delivery = this.#deliver(id, JSON.stringify(body)).finally(() => {
      this.#in_flight.delete(id);
    });
    this.#in_flight.set(id, delivery);
    return delivery;
  }

  async #deliver(id: string, text: string): Promise<boolean> {
    const attempts = this.#options.attempts ?? 5;
    let delay = this.#options.backoff_ms ?? 500;
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      const result = await this.#post(id, text);
      if (result.status >= 200 && result.status < 300) {
        this.#delivered.check_and_remember(id);
        return true;
      }
      const retryable =
        result.status === 0 ||
        result.status === 408 ||
        result.status === 429 ||
        result.status >= 500;
      if (!retryable || attempt === attempts) return false;
      await sleep(result.retry_after_ms ?? delay);
      delay *= 2;
    }
    return false;
  }

  async #post(id: string, text: string): Promise<Attempt> {
    const client =
      this.url.protocol === 'https:' ? await import('node:https') : await import('node:http');
    const body = Buffer.from(text);
    return new Promise<Attempt>((resolve) => {
      const request = client.request(this.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': String(body.length),
          'user-agent': 'lich-gateway-webhook',
          ...signed_headers(this.#options.key, id, body),
        },
        timeout: this.#options.timeout_ms ?? 10_000,
      });
      request.on('response', (response) => {
        response.resume(); // the body is not needed; let the socket be reused
        response.on('end', () => {
          resolve({ status: response.statusCode ?? 0, retry_after_ms: retry_after(response) });
        });
        response.on('error', (error) =>
          resolve({ status: 0, retry_after_ms: null, error: error.message }),
        );
      });
      request.on('timeout', () => request.destroy(new Error('timed out')));
      request.on('error', (error) =>
        resolve({ status: 0, retry_after_ms: null, error: error.message }),
      );
      request.end(body);
    });
  }
}
