import { describe, expect, it } from 'vitest';
import type { ProviderEntry } from './config/config_schema.js';
import { chain_for_model } from './model_chain.js';

const CHAIN = [
  { kind: 'anthropic', model: 'claude-a' },
  { kind: 'openai_compat', model: 'gpt-b' },
  { kind: 'openai_compat', model: 'org/model-c' },
] as ProviderEntry[];

describe('chain_for_model', () => {
  it('moves the named model to the front', () => {
    expect(chain_for_model(CHAIN, 'gpt-b')?.map((entry) => entry.model)).toEqual([
      'gpt-b',
      'claude-a',
      'org/model-c',
    ]);
    expect(chain_for_model(CHAIN, 'openai_compat/gpt-b')?.[0]?.model).toBe('gpt-b');
    expect(chain_for_model(CHAIN, 'org/model-c')?.[0]?.model).toBe('org/model-c');
  });

  it('replaces the model of a known provider, and refuses an unknown one', () => {
    const chain = chain_for_model(CHAIN, 'anthropic/claude-z');
    expect(chain?.[0]).toMatchObject({ kind: 'anthropic', model: 'claude-z' });
    expect(chain).toHaveLength(3);
    expect(chain_for_model(CHAIN, 'nobody')).toBeNull();
    expect(chain_for_model(CHAIN, 'ollama/llama')).toBeNull();
    expect(chain_for_model(CHAIN, '')).toBeNull();
  });
});
