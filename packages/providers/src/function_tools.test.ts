import { describe, expect, it } from 'vitest';
import { to_function_tools } from './function_tools.js';

describe('to_function_tools', () => {
  it('wraps each definition as a function tool, in order', () => {
    const parameters = { type: 'object', properties: { city: { type: 'string' } } };
    expect(
      to_function_tools([
        { name: 'weather', description: 'look up', parameters },
        { name: 'clock', description: 'time', parameters: { type: 'object' } },
      ]),
    ).toEqual([
      { type: 'function', function: { name: 'weather', description: 'look up', parameters } },
      {
        type: 'function',
        function: { name: 'clock', description: 'time', parameters: { type: 'object' } },
      },
    ]);
  });
});
