import { describe, expect, it } from 'vitest';
import { endpoint_url } from './endpoint_url.js';

const append = (suffix: string) => (path: string) => `${path}${suffix}`;

describe('endpoint_url', () => {
  it('hands the base path to to_path without trailing slashes', () => {
    const seen: string[] = [];
    const record = (path: string) => {
      seen.push(path);
      return path;
    };
    endpoint_url('http://h:1', record);
    endpoint_url('http://h:1/', record);
    endpoint_url('http://h:1/v1//', record);
    endpoint_url('http://h:1/proxy/api', record);
    expect(seen).toEqual(['', '', '/v1', '/proxy/api']);
  });

  it('builds the URL from the path to_path returns', () => {
    expect(endpoint_url('https://api.example.com/v1/', append('/chat'))).toBe(
      'https://api.example.com/v1/chat',
    );
    expect(endpoint_url('http://h:1', append(''))).toBe('http://h:1/');
  });

  it('trims the base and takes a base without a scheme as http', () => {
    expect(endpoint_url('  localhost:8000/v1 ', append('/chat'))).toBe(
      'http://localhost:8000/v1/chat',
    );
    expect(endpoint_url('127.0.0.1:11434', append('/api/chat'))).toBe(
      'http://127.0.0.1:11434/api/chat',
    );
  });

  it('keeps a query of the base', () => {
    expect(endpoint_url('https://h/v1?api-version=2', append('/chat'))).toBe(
      'https://h/v1/chat?api-version=2',
    );
  });

  it('throws a TypeError for a string that is no URL, and passes on what to_path throws', () => {
    expect(() => endpoint_url('http://', append('/chat'))).toThrow(TypeError);
    expect(() =>
      endpoint_url('http://h', () => {
        throw new RangeError('no');
      }),
    ).toThrow(RangeError);
  });
});
