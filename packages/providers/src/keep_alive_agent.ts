import type { Agent, AgentOptions, ClientRequest } from 'node:http';
import type { Socket } from 'node:net';

/**
 * How long a kept-alive connection may sit idle before it is closed (undici's default as well);
 * shorter when the server's `keep-alive: timeout=N` asks for less.
 */
export const FREE_SOCKET_TIMEOUT_MS = 4_000;

/** How much sooner than a server's announced keep-alive timeout a free socket is closed. */
const HINT_MARGIN_MS = 1_000;

/** `node:http` or `node:https`: what makes the agent. */
interface AgentModule {
  Agent: new (options: AgentOptions) => Agent;
}

/** The parts of `http.Agent` this overrides (Node's own, typed as Node has them). */
interface AgentHooks {
  keepSocketAlive(socket: Socket): boolean;
  reuseSocket(socket: Socket, request: ClientRequest): void;
}

/**
 * A keep-alive agent whose sockets time out only while free: after `FREE_SOCKET_TIMEOUT_MS` idle
 * (or a second before the server's `keep-alive: timeout=N`), a free socket is closed by the agent,
 * so a request never goes out on a connection the server is about to drop. Node's `timeout`
 * agent option would do the same, but it also arms the socket's timer for every request in
 * flight, with a listener added and removed each time and the timer restarted on every chunk read;
 * here a request in flight has no timer at all (the caller's idle timeout watches it).
 */
export function keep_alive_agent(module: AgentModule): Agent {
  const agent = new module.Agent({ keepAlive: true });
  const hooks = agent as unknown as AgentHooks;
  const keep = hooks.keepSocketAlive.bind(agent);
  const reuse = hooks.reuseSocket.bind(agent);
  hooks.keepSocketAlive = (socket) => {
    // Node's own: unref, TCP keep-alive, and `false` when the server's timeout is too short to use
    if (!keep(socket)) return false;
    socket.setTimeout(free_timeout(socket));
    return true;
  };
  hooks.reuseSocket = (socket, request) => {
    socket.setTimeout(0);
    reuse(socket, request);
  };
  return agent;
}

/** The idle time allowed to `socket`, just freed: the default, or less when its server says so. */
function free_timeout(socket: Socket): number {
  const message = (socket as { _httpMessage?: { res?: { headers: Record<string, unknown> } } })
    ._httpMessage;
  const hint = message?.res?.headers['keep-alive'];
  const seconds = typeof hint === 'string' ? /^timeout=(\d+)/.exec(hint)?.[1] : undefined;
  if (seconds === undefined) return FREE_SOCKET_TIMEOUT_MS;
  const announced = Number(seconds) * 1000 - HINT_MARGIN_MS;
  return announced > 0 && announced < FREE_SOCKET_TIMEOUT_MS ? announced : FREE_SOCKET_TIMEOUT_MS;
}
