import { AwsV4Signer } from 'aws4fetch';

/** AWS credentials: a key pair and, for temporary ones, a session token. */
export interface AwsCredentials {
  access_key_id: string;
  secret_access_key: string;
  session_token?: string;
}

/** One request to sign, as it will be sent (every header given is signed). */
export interface SigV4Request {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * The headers that sign `request` with AWS Signature Version 4 (`authorization`, `x-amz-date`,
 * and `x-amz-security-token` for temporary credentials), made by `aws4fetch`'s signer: the host
 * and every header given are signed, the path is encoded twice as every service but S3 wants, the
 * query sorted, the body hashed. `now` fixes the time (the test vectors' 2015-08-30T12:36:00Z).
 *
 * Contract: never mutates `request`; rejects only for missing credentials (a programmer error).
 */
export async function sign_sigv4(
  request: SigV4Request,
  options: {
    credentials: AwsCredentials;
    region: string;
    service: string;
    now?: Date;
    /**
     * Encode the path once, not twice: the test suite's rule for a raw path; real services but
     * S3 want it twice (a model id's `%3A` signed as `%253A`), the default.
     */
    single_encode?: boolean;
  },
): Promise<Record<string, string>> {
  const { credentials } = options;
  const signer = new AwsV4Signer({
    method: request.method,
    url: request.url,
    headers: request.headers,
    body: request.body,
    accessKeyId: credentials.access_key_id,
    secretAccessKey: credentials.secret_access_key,
    sessionToken: credentials.session_token,
    service: options.service,
    region: options.region,
    datetime: (options.now ?? new Date()).toISOString().replace(/[:-]|\.\d{3}/g, ''),
    // every header given is sent as given: sign them all (content-type included)
    allHeaders: true,
    singleEncode: options.single_encode,
  });
  const signed = await signer.sign();
  const headers: Record<string, string> = {
    authorization: signed.headers.get('authorization') ?? '',
    'x-amz-date': signed.headers.get('x-amz-date') ?? '',
  };
  const token = signed.headers.get('x-amz-security-token');
  if (token !== null) headers['x-amz-security-token'] = token;
  return headers;
}
