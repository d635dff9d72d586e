import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sign_sigv4 } from './sign_sigv4.js';

interface Case {
  name: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  authorization: string;
  session_token?: string;
  /** The suite's raw path, encoded once (see `single_encode`). */
  single_encode?: boolean;
}

const SUITE = JSON.parse(
  readFileSync(new URL('../test/fixtures/sigv4_test_suite.json', import.meta.url), 'utf8'),
) as {
  credentials: { access_key_id: string; secret_access_key: string };
  region: string;
  service: string;
  date: string;
  cases: Case[];
  session_token_case: Case;
};

describe("sign_sigv4 against AWS's published Signature Version 4 test suite", () => {
  it.each(SUITE.cases.map((entry) => [entry.name, entry] as const))('%s', async (_name, entry) => {
    const headers = await sign_sigv4(entry, {
      credentials: SUITE.credentials,
      region: SUITE.region,
      service: SUITE.service,
      now: new Date(SUITE.date),
      single_encode: entry.single_encode,
    });
    expect(headers).toEqual({
      authorization: entry.authorization,
      'x-amz-date': '20150830T123600Z',
    });
  });

  it('signs a session token in as x-amz-security-token (post-sts-header-before)', async () => {
    const entry = SUITE.session_token_case;
    const headers = await sign_sigv4(entry, {
      credentials: { ...SUITE.credentials, session_token: entry.session_token },
      region: SUITE.region,
      service: SUITE.service,
      now: new Date(SUITE.date),
    });
    expect(headers.authorization).toBe(entry.authorization);
    expect(headers['x-amz-security-token']).toBe(entry.session_token);
  });
});
