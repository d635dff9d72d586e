export { AcpAgent, type AcpAgentOptions } from './acp_agent.js';
export { type AcpClientPeer, type AcpStream, byte_stream, node_stream } from './acp_sdk.js';
export type { HostFactory, HostSetup } from './host_pool.js';
export { type AcpServer, serve_acp, serve_acp_stdio } from './serve_acp.js';
