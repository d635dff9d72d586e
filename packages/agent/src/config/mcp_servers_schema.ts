/**
 * The `mcp_servers` catalog schema, owned by `@lich/mcp`. It comes from the `./catalog` subpath,
 * which imports only zod: loading the config must never load the MCP client.
 */
export { McpServersSchema as MCP_SERVERS_SCHEMA } from '@lich/mcp/catalog';
