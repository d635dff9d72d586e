import { createServer } from 'node:net';

/**
 * A base URL on 127.0.0.1 where nothing listens (a port bound then released), for "connection
 * refused" tests. Another process could take the port in between; on a test machine that is rare.
 */
export async function unused_port_url(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
