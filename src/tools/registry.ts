import { GatewayError } from '../errors/gateway-error.js';
import type { UpstreamMcpServer, UpstreamTool } from '../mcp/upstream-server.js';
import type { UpstreamMcpServers } from '../mcp/upstream-servers.js';
import { builtinToolsFor } from './builtin-tools.js';
import type { GatewayTool, ToolContext } from './tool.js';

/** Tools of configured MCP servers are named `SERVER__TOOL` in /v1/tools (as MCP clients prefix them). */
export const MCP_TOOL_SEPARATOR = '__';

export function mcpTool(server: UpstreamMcpServer, tool: UpstreamTool, name = `${server.name}${MCP_TOOL_SEPARATOR}${tool.name}`): GatewayTool {
  return {
    name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    source: `mcp:${server.name}`,
    invoke: (args, context) => server.callTool(tool.name, args, context.signal),
  };
}

/**
 * Every tool this key can run: the built-in ones its scopes allow, then each configured MCP
 * server's allow-listed tools. A server that cannot be reached is left out of the list (and
 * logged), so one broken server does not hide the others.
 */
export async function listTools(context: ToolContext, servers: UpstreamMcpServers): Promise<{ tools: GatewayTool[]; unavailable: string[] }> {
  const tools = builtinToolsFor(context);
  const unavailable: string[] = [];
  const listings = await Promise.allSettled(servers.all().map(async (server) => (await server.listTools(context.signal)).map((tool) => mcpTool(server, tool))));
  listings.forEach((listing, index) => {
    if (listing.status === 'fulfilled') tools.push(...listing.value);
    else unavailable.push(servers.all()[index]!.name);
  });
  return { tools, unavailable };
}

/** One tool by its /v1/tools name; unknown → RESOURCE_5404 pointing at the list. */
export async function findTool(context: ToolContext, servers: UpstreamMcpServers, name: string): Promise<GatewayTool> {
  const builtin = builtinToolsFor(context).find((tool) => tool.name === name);
  if (builtin !== undefined) return builtin;
  const separator = name.indexOf(MCP_TOOL_SEPARATOR);
  const server = separator > 0 ? servers.get(name.slice(0, separator)) : undefined;
  if (server !== undefined) {
    const toolName = name.slice(separator + MCP_TOOL_SEPARATOR.length);
    const tool = (await server.listTools(context.signal)).find((candidate) => candidate.name === toolName);
    if (tool !== undefined) return mcpTool(server, tool);
  }
  throw new GatewayError('RESOURCE_5404', `No tool "${name}" for this key; GET /v1/tools lists the tools it can run.`, { field: 'name' });
}
