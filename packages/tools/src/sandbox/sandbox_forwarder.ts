/** The loopback port commands reach the allow-list proxy on, inside bubblewrap's network namespace. */
export const SANDBOX_PROXY_PORT = 3128;

/** The message the forwarder sends with each connection it hands over. */
export const FORWARDED_CONNECTION = 'lich_proxy_connection';

/**
 * A program for `node -e`, run as the first process of a bubblewrap sandbox whose commands may
 * reach listed hosts. A new network namespace holds only its own loopback, so the proxy, which
 * runs in Lich, is out of reach over TCP, and the sandbox may not make unix sockets (the seccomp
 * filter): this forwarder listens on `127.0.0.1:<port>` inside and hands each connection it
 * accepts to Lich over the IPC channel Lich started it with (a socket pair made before the
 * sandbox, so no unix socket is made inside), then starts the command with its own stdin, stdout
 * and stderr, without that channel, and exits with the command's status (128 + the signal's
 * number when a signal ended it). Being PID 1, its exit ends every process left.
 *
 * Arguments: `<port> <program> <arguments…>`. Plain CommonJS, no dependency: it runs from the
 * text, so nothing has to exist on disk inside the sandbox.
 */
export const FORWARDER_SOURCE = `
'use strict';
const net = require('node:net');
const { spawn } = require('node:child_process');
const { constants } = require('node:os');
const [port, program, ...args] = process.argv.slice(1);
const server = net.createServer({ pauseOnConnect: true }, (client) => {
  if (!process.connected) return client.destroy();
  process.send({ type: '${FORWARDED_CONNECTION}' }, client, (error) => {
    if (error) client.destroy();
  });
});
server.on('error', (error) => {
  process.stderr.write('lich sandbox: the proxy forwarder cannot listen: ' + error.message + '\\n');
  process.exit(126);
});
server.listen(Number(port), '127.0.0.1', () => {
  const env = { ...process.env };
  delete env.NODE_CHANNEL_FD;
  delete env.NODE_CHANNEL_SERIALIZATION_MODE;
  const child = spawn(program, args, { stdio: 'inherit', env });
  child.on('error', (error) => {
    process.stderr.write('lich sandbox: ' + error.message + '\\n');
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    process.exit(code !== null ? code : 128 + (constants.signals[signal] || 0));
  });
});
`;
