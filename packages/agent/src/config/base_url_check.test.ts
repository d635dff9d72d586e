import { describe, expect, it } from 'vitest';
import { base_url_problem } from './base_url_check.js';

describe('base_url_problem', () => {
  it('accepts http, https and host:port', () => {
    for (const url of [
      'http://127.0.0.1:8000/v1',
      'https://api.openai.com/v1',
      'localhost:11434',
    ]) {
      expect(base_url_problem(url), url).toBeUndefined();
    }
  });

  it('refuses every other scheme and what is no URL', () => {
    expect(base_url_problem('file:///etc/passwd')).toMatch(/got a file: URL/);
    expect(base_url_problem('ftp://x/')).toMatch(/ftp:/);
    expect(base_url_problem('gopher://x/')).toMatch(/gopher:/);
    expect(base_url_problem('javascript:alert(1)')).toMatch(/javascript:/);
    expect(base_url_problem('data:text/plain,hi')).toMatch(/data:/);
    expect(base_url_problem('http://')).toMatch(/expected an http/);
    expect(base_url_problem(' ')).toMatch(/empty/);
  });
});
