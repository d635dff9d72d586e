import { SessionHostError } from '@lich/agent';
import { describe, expect, it } from 'vitest';
import { RunFailed } from './run_prompt.js';

describe('RunFailed', () => {
  it('is lasting only for an input the host refuses', () => {
    const refused = new RunFailed(new SessionHostError('invalid_argument', 'bad input'), []);
    expect(refused.lasting).toBe(true);
    expect(refused.message).toBe('bad input');
    expect(new RunFailed(new SessionHostError('unknown_session', 'gone'), []).lasting).toBe(false);
    expect(new RunFailed('down', []).message).toBe('down');
  });
});
