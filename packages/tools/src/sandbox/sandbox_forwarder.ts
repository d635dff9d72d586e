/** The loopback port commands reach the allow-list proxy on, inside bubblewrap's network namespace. */
export const SANDBOX_PROXY_PORT = 3128;

/**
 * A program for `node -e`, run as the first process of a bubblewrap sandbox whose commands may
 * reach listed hosts. A new network namespace holds only its own loopback, so the proxy, which
 * runs in Lich and listens on a unix socket in the sandbox's temp dir, is out of reach over TCP:
 * this forwarder listens on `127.0.0.1:<port>` inside, hands each connection to the socket, starts
 * the command with its own stdin, stdout and stderr, and exits with the command's status (128 +
 * the signal's number when a signal ended it). Being PID 1, its exit ends every process left.
 *
 * Arguments: `<socket> <port> <program> <arguments…>`. Plain CommonJS, no dependency: it runs
 * from the text, so nothing has to exist on disk inside the sandbox.
 */
export const FORWARDER_SOURCE = `
'use strict';
const net = require('node:net');
const { spawn } = require('node:child_process');
const { constants } = require('node:os');
const [socket_path, port, program, ...args] = process.argv.slice(1);
const server = net.createServer((client) => {
  const upstream = net.connect(socket_path);
  const close = () => { client.destroy(); upstream.destroy(); };
  client.on('error', close);
  upstream.on('error', close);
  client.on('close', close);
  upstream.on('close', close);
  client.pipe(upstream).pipe(client);
});
server.on('error', (error) => {
  process.stderr.write('lich sandbox: the proxy forwarder cannot listen: ' + error.message + '\\n');
  process.exit(126);
});
server.listen(Number(port), '127.0.0.1', () => {
  const child = spawn(program, args, { stdio: 'inherit' });
  child.on('error', (error) => {
    process.stderr.write('lich sandbox: ' + error.message + '\\n');
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    process.exit(code !== null ? code : 128 + (constants.signals[signal] || 0));
  });
});
`;
