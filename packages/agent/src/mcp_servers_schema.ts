import { z } from 'zod';

/**
 * The `mcp_servers` catalog: server name → how to reach it. A stdio server has a `command`; an
 * HTTP server a loopback `url`. `enabled: false` keeps an entry without connecting to it.
 */
export const MCP_SERVERS_SCHEMA = z.record(
  z.string().regex(/^[a-zA-Z0-9_-]{1,32}$/),
  z.object({
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().optional(),
    url: z.url().optional(),
    headers: z.record(z.string(), z.string()).optional(),
    enabled: z.boolean().optional(),
    timeout_ms: z.int().positive().optional(),
  }),
);
