import { describe, expect, it } from 'vitest';
import { ProviderError } from './provider_error.js';
import { StreamParseError } from './stream_parse_error.js';
import { network_cause, to_provider_error } from './to_provider_error.js';

const CONTEXT = { provider: 'p', model: 'm' };

describe('to_provider_error', () => {
  it('keeps a ProviderError and maps aborts, parse errors, fetch failures and cuts', () => {
    const own = new ProviderError({ kind: 'http', status: 500, ...CONTEXT });
    expect(to_provider_error(own, CONTEXT)).toBe(own);
    const aborted = new AbortController();
    aborted.abort();
    expect(to_provider_error(new Error('x'), { ...CONTEXT, signal: aborted.signal }).kind).toBe(
      'aborted',
    );
    expect(to_provider_error(new DOMException('gone', 'AbortError'), CONTEXT).kind).toBe('aborted');
    expect(to_provider_error(new StreamParseError('bad', 3, 'line'), CONTEXT).message).toBe(
      "p (m): parse error: bad (line 3: 'line')",
    );
    const syntax = to_provider_error(new SyntaxError('Unexpected token <'), CONTEXT);
    expect(syntax.message).toBe(
      'p (m): parse error: invalid JSON in the answer: Unexpected token <',
    );
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
      code: 'ECONNREFUSED',
    });
    const network = to_provider_error(new TypeError('fetch failed', { cause: refused }), CONTEXT);
    expect(network).toMatchObject({ kind: 'network', retryable: true });
    expect(network.message).toBe('p (m): network error: connect ECONNREFUSED 127.0.0.1:1');
    const cut = to_provider_error(
      new TypeError('terminated', { cause: new Error('other side closed') }),
      CONTEXT,
    );
    expect(cut.message).toBe(
      'p (m): stream error: the connection broke mid-stream (other side closed)',
    );
    const odd = to_provider_error('weird', CONTEXT);
    expect(odd).toMatchObject({ kind: 'stream', retryable: false });
    expect(odd.message).toBe('p (m): stream error: unexpected error: weird');
  });

  it('digs the first error out of an AggregateError cause', () => {
    const aggregate = new AggregateError([new Error('connect ECONNREFUSED ::1:80')], '');
    expect(network_cause(new TypeError('fetch failed', { cause: aggregate })).message).toBe(
      'connect ECONNREFUSED ::1:80',
    );
  });
});
