import { describe, expect, it } from 'vitest';
import { to_gemini_schema } from './to_gemini_schema.js';

describe('to_gemini_schema', () => {
  it('keeps what the API accepts and drops the rest', () => {
    expect(
      to_gemini_schema({
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        additionalProperties: false,
        properties: {
          path: { type: 'string', description: 'where', format: 'uri', minLength: 1 },
          count: { type: 'integer', minimum: 0, exclusiveMaximum: 10, default: 1 },
          mode: { type: 'string', enum: ['a', 'b'] },
        },
        required: ['path', 'missing'],
      }),
    ).toEqual({
      type: 'object',
      properties: {
        path: { type: 'string', description: 'where', minLength: 1 },
        count: { type: 'integer', minimum: 0, default: 1 },
        mode: { type: 'string', enum: ['a', 'b'] },
      },
      required: ['path'],
    });
  });

  it('maps nullable types, const, oneOf, a one-schema allOf and local $refs', () => {
    expect(
      to_gemini_schema({
        type: 'object',
        $defs: { Point: { type: 'object', properties: { x: { type: 'number' } } } },
        properties: {
          name: { type: ['string', 'null'] },
          kind: { const: 'circle' },
          shape: { oneOf: [{ type: 'string' }, { type: 'number' }] },
          at: { allOf: [{ $ref: '#/$defs/Point' }], description: 'the centre' },
          free: { type: 'object', additionalProperties: true, description: 'any fields' },
          numbers: { type: 'integer', enum: [1, 2] },
        },
      }),
    ).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', nullable: true },
        kind: { type: 'string', enum: ['circle'] },
        shape: { anyOf: [{ type: 'string' }, { type: 'number' }] },
        at: { type: 'object', properties: { x: { type: 'number' } }, description: 'the centre' },
        free: { description: 'any fields' },
        numbers: { type: 'integer' },
      },
    });
  });

  it('leaves out the parameters of a tool that takes none, and survives a $ref loop', () => {
    expect(to_gemini_schema({ type: 'object', properties: {} })).toBeUndefined();
    expect(to_gemini_schema({ type: 'object' })).toBeUndefined();
    const looped = to_gemini_schema({
      type: 'object',
      definitions: {
        node: { type: 'object', properties: { next: { $ref: '#/definitions/node' } } },
      },
      properties: { head: { $ref: '#/definitions/node' } },
    });
    expect(looped?.properties).toBeDefined();
  });
});
