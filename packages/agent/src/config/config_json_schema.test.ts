import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIG_SCHEMA_PATH, config_json_schema } from './config_json_schema.js';

describe('config.schema.json', () => {
  it('is in sync with the zod schema (LICH_UPDATE_SCHEMA=1 regenerates it)', () => {
    const expected = `${JSON.stringify(config_json_schema(), null, 2)}\n`;
    if (process.env.LICH_UPDATE_SCHEMA === '1') writeFileSync(CONFIG_SCHEMA_PATH, expected);
    // compared as data, so a formatter's whitespace choices do not matter
    expect(JSON.parse(readFileSync(CONFIG_SCHEMA_PATH, 'utf8'))).toEqual(JSON.parse(expected));
  });

  it('describes the keys, their defaults and the provider entries', () => {
    const schema = config_json_schema() as {
      properties: Record<string, { default?: unknown; items?: { required?: string[] } }>;
      additionalProperties?: unknown;
    };
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['$schema', 'providers', 'max_turns', 'tools_enabled', 'mcp_servers']),
    );
    expect(schema.properties.max_turns?.default).toBe(50);
    expect(schema.properties.providers?.items?.required).toEqual(['kind', 'model']);
  });
});
