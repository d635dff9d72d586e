import { describe, expect, it } from 'vitest';
import { REDACTED, redact_config } from './config_redact.js';

describe('redact_config', () => {
  it('redacts headers named like credentials, URL passwords and query secrets', () => {
    const shown = redact_config({
      providers: [
        {
          kind: 'openai_compat',
          model: 'm',
          api_key_env: 'AZURE_KEY',
          base_url: 'https://x.test/v1?api-key=abc123&mode=fast',
          headers: { 'Ocp-Apim-Subscription-Key': 'k1', 'X-Auth': 'k2', 'X-Title': 'lich' },
        },
      ],
      mcp_servers: {
        db: {
          command: 'db-mcp',
          env: {
            DATABASE_URL: 'postgres://user:PW@db.test:5432/app',
            // biome-ignore lint/suspicious/noTemplateCurlyInString: a ${VAR} placeholder of the config, not a template
            GITHUB_TOKEN: '${GITHUB_TOKEN}',
            LOG_LEVEL: 'debug',
          },
        },
      },
    }) as {
      providers: { base_url: string; api_key_env: string; headers: Record<string, string> }[];
      mcp_servers: { db: { env: Record<string, string> } };
    };
    const [provider] = shown.providers;
    expect(provider?.headers).toEqual({
      'Ocp-Apim-Subscription-Key': REDACTED,
      'X-Auth': REDACTED,
      'X-Title': 'lich',
    });
    expect(provider?.api_key_env).toBe('AZURE_KEY');
    expect(provider?.base_url).toBe(`https://x.test/v1?api-key=${REDACTED}&mode=fast`);
    expect(shown.mcp_servers.db.env).toEqual({
      DATABASE_URL: `postgres://user:${REDACTED}@db.test:5432/app`,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a ${VAR} placeholder of the config, not a template
      GITHUB_TOKEN: '${GITHUB_TOKEN}',
      LOG_LEVEL: 'debug',
    });
  });
});
