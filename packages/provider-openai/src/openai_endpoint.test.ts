import { describe, expect, it } from 'vitest';
import { azure_chat_url, is_azure_base } from './azure_endpoint.js';
import { openai_chat_url } from './openai_endpoint.js';

describe('openai_chat_url', () => {
  it('handles bases with or without /v1 and trailing slashes', () => {
    expect(openai_chat_url()).toBe('https://api.openai.com/v1/chat/completions');
    expect(openai_chat_url('https://api.openai.com/v1/')).toBe(
      'https://api.openai.com/v1/chat/completions',
    );
    expect(openai_chat_url('http://127.0.0.1:8000')).toBe(
      'http://127.0.0.1:8000/v1/chat/completions',
    );
    expect(openai_chat_url('http://127.0.0.1:8000/')).toBe(
      'http://127.0.0.1:8000/v1/chat/completions',
    );
    expect(openai_chat_url('https://openrouter.ai/api/v1')).toBe(
      'https://openrouter.ai/api/v1/chat/completions',
    );
    expect(openai_chat_url('http://h:1234/v1/chat/completions')).toBe(
      'http://h:1234/v1/chat/completions',
    );
  });

  it('takes a base without a scheme as http, and throws on one that is no URL', () => {
    expect(openai_chat_url('localhost:8000/v1')).toBe('http://localhost:8000/v1/chat/completions');
    expect(() => openai_chat_url('http://')).toThrow();
  });
});

describe('azure_chat_url', () => {
  it('builds the deployment URL with api-version, and the v1 URL without', () => {
    expect(azure_chat_url('https://r.openai.azure.com', 'gpt-4o', '2024-10-21')).toBe(
      'https://r.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21',
    );
    expect(
      azure_chat_url(
        'https://r.openai.azure.com/openai/deployments/prod-4o/',
        'gpt-4o',
        '2025-01-01',
      ),
    ).toBe(
      'https://r.openai.azure.com/openai/deployments/prod-4o/chat/completions?api-version=2025-01-01',
    );
    expect(azure_chat_url('https://r.openai.azure.com/openai/v1', 'gpt-4o', '2024-10-21')).toBe(
      'https://r.openai.azure.com/openai/v1/chat/completions',
    );
  });

  it('knows an Azure base by its host or its deployment path', () => {
    expect(is_azure_base('https://r.openai.azure.com')).toBe(true);
    expect(is_azure_base('https://r.cognitiveservices.azure.com/openai/v1')).toBe(true);
    expect(is_azure_base('http://127.0.0.1:9/openai/deployments/x')).toBe(true);
    expect(is_azure_base('https://api.openai.com/v1')).toBe(false);
    expect(is_azure_base(undefined)).toBe(false);
  });
});
