import type { AwsCredentials } from './sign_sigv4.js';

/** Where the credentials came from, named in the error when there are none. */
export const AWS_CREDENTIAL_HINT =
  'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE with ~/.aws/credentials, or AWS_BEARER_TOKEN_BEDROCK)';

/** What signs a Bedrock request: AWS credentials, or a Bedrock API key sent as a bearer token. */
export type BedrockAuth =
  | { kind: 'sigv4'; credentials: AwsCredentials }
  | { kind: 'bearer'; token: string };

/** The `[section]` of an INI file, its `key = value` lines (AWS's credentials and config files). */
export function ini_section(text: string, section: string): Record<string, string> | undefined {
  let inside = false;
  let found: Record<string, string> | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[\s*(.+?)\s*\]$/.exec(line);
    if (header) {
      inside = header[1] === section;
      if (inside) found ??= {};
      continue;
    }
    const pair = /^([^=]+?)\s*=\s*(.*)$/.exec(line);
    if (inside && pair && found) found[(pair[1] as string).toLowerCase()] = pair[2] as string;
  }
  return found;
}

/**
 * The credentials a Bedrock call uses, from the standard AWS places in order: the environment
 * (`AWS_BEARER_TOKEN_BEDROCK`, else `AWS_ACCESS_KEY_ID` + `AWS_SECRET_ACCESS_KEY` +
 * `AWS_SESSION_TOKEN`), then the shared credentials file (`AWS_SHARED_CREDENTIALS_FILE`, default
 * `~/.aws/credentials`) at the profile `AWS_PROFILE` (default `default`). `undefined` when none is
 * there. Reads one file at most; never throws.
 */
export async function find_aws_auth(
  env: Readonly<Record<string, string | undefined>>,
): Promise<BedrockAuth | undefined> {
  if (env.AWS_BEARER_TOKEN_BEDROCK) return { kind: 'bearer', token: env.AWS_BEARER_TOKEN_BEDROCK };
  if (env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
    const credentials: AwsCredentials = {
      access_key_id: env.AWS_ACCESS_KEY_ID,
      secret_access_key: env.AWS_SECRET_ACCESS_KEY,
    };
    if (env.AWS_SESSION_TOKEN) credentials.session_token = env.AWS_SESSION_TOKEN;
    return { kind: 'sigv4', credentials };
  }
  try {
    const { readFile } = await import('node:fs/promises');
    const { homedir } = await import('node:os');
    const { join } = await import('node:path');
    const file =
      env.AWS_SHARED_CREDENTIALS_FILE || join(env.HOME || homedir(), '.aws', 'credentials');
    const section = ini_section(await readFile(file, 'utf8'), env.AWS_PROFILE || 'default');
    const id = section?.aws_access_key_id;
    const secret = section?.aws_secret_access_key;
    if (!id || !secret) return undefined;
    const credentials: AwsCredentials = { access_key_id: id, secret_access_key: secret };
    if (section?.aws_session_token) credentials.session_token = section.aws_session_token;
    return { kind: 'sigv4', credentials };
  } catch {
    return undefined;
  }
}
