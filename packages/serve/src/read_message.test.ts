import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from './protocol_errors.js';
import { read_message } from './read_message.js';

function code_of(line: string): number | undefined {
  const message = read_message(line);
  return message.kind === 'invalid' ? message.error.code : undefined;
}

describe('read_message', () => {
  it('reads requests, notifications and responses', () => {
    expect(read_message('{"jsonrpc":"2.0","id":1,"method":"ping"}')).toEqual({
      kind: 'request',
      id: 1,
      method: 'ping',
      params: undefined,
    });
    expect(read_message('{"jsonrpc":"2.0","method":"x","params":{"a":1}}')).toMatchObject({
      kind: 'notification',
      method: 'x',
    });
    expect(read_message('{"jsonrpc":"2.0","id":"a","result":{}}')).toMatchObject({
      kind: 'response',
      id: 'a',
    });
  });

  it('refuses what is not a single JSON-RPC 2.0 request', () => {
    expect(code_of('{"jsonrpc":"2.0",')).toBe(ERROR_CODES.parse_error);
    expect(code_of('[{"jsonrpc":"2.0","id":1,"method":"ping"}]')).toBe(ERROR_CODES.invalid_request);
    expect(code_of('42')).toBe(ERROR_CODES.invalid_request);
    expect(code_of('{"id":1,"method":"ping"}')).toBe(ERROR_CODES.invalid_request);
    expect(code_of('{"jsonrpc":"2.0","id":1,"method":7}')).toBe(ERROR_CODES.invalid_request);
    expect(code_of('{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}')).toBe(
      ERROR_CODES.invalid_request,
    );
    expect(code_of('{"jsonrpc":"2.0","id":1.5,"method":"ping"}')).toBe(ERROR_CODES.invalid_request);
    expect(code_of('{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}')).toBe(
      ERROR_CODES.invalid_params,
    );
  });

  it('keeps the id of an invalid request when it can be read', () => {
    expect(read_message('{"jsonrpc":"1.0","id":5,"method":"ping"}')).toMatchObject({
      kind: 'invalid',
      id: 5,
    });
  });
});
