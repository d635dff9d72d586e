import { describe, expect, it } from 'vitest';
import { acp_error, error_text, is_host_error } from './acp_error.js';
import { acp_errors } from './acp_sdk.js';

function host_error(code: string, message: string): Error {
  return Object.assign(Object.assign(new Error(message), { name: 'SessionHostError' }), { code });
}

const shape = (error: Error) => ({
  message: error.message,
  code: (error as { code?: unknown }).code,
});

describe('acp_error', () => {
  it('maps a host refusal to the ACP error of its code', () => {
    expect(shape(acp_error(host_error('unknown_session', 'no s1'), 's1'))).toEqual(
      shape(acp_errors.session_not_found('s1')),
    );
    expect(shape(acp_error(host_error('invalid_argument', 'bad mode')))).toEqual(
      shape(acp_errors.invalid_params('bad mode')),
    );
    expect(shape(acp_error(host_error('shutting_down', 'bye')))).toEqual(
      shape(acp_errors.internal('bye')),
    );
  });

  it('maps anything else to an internal error with its text', () => {
    expect(shape(acp_error(new Error('boom')))).toEqual(shape(acp_errors.internal('boom')));
    expect(shape(acp_error('plain'))).toEqual(shape(acp_errors.internal('plain')));
    expect(error_text(42)).toBe('42');
    expect(is_host_error(new Error('x'))).toBe(false);
  });
});
