import { GatewayError } from '../errors/gateway-error.js';
import type { RequestCall } from '../http/request-call.js';
import type { ExposedTools } from '../mcp/gateway-mcp-server.js';
import { builtinToolsFor } from '../tools/builtin-tools.js';
import { mcpTool } from '../tools/registry.js';
import { toolContext } from './tools.js';

/**
 * /v1/mcp/{server} (scope kit.mcp; DESIGN §7): MCP over Streamable HTTP, authenticated with igw
 * keys. `igw` is igw's own server (knowledge-base search, document conversion, models); any other
 * name is a configured `mcp_servers` entry, whose allow-listed tools igw offers under their own
 * names and calls on the client's behalf — one key, one audit log (each call is a request-log
 * line whose model is `tool:NAME`). Stateless: every HTTP request gets a fresh server and
 * transport, so any instance can answer any request and nothing lingers per client.
 */
export async function handleMcp(call: RequestCall): Promise<void> {
  const name = call.params['server']!;
  const context = toolContext(call);
  const tools = exposedTools(call, name);
  // The MCP SDK loads on the first /mcp request: ~14 MB resident otherwise held by every gateway (issue 18 item 3).
  const [{ StreamableHTTPServerTransport }, { gatewayMcpServer }] = await Promise.all([import('@modelcontextprotocol/sdk/server/streamableHttp.js'), import('../mcp/gateway-mcp-server.js')]);
  const server = gatewayMcpServer(name, tools, context, (tool) => {
    call.log.model = `tool:${name === 'igw' ? tool : `${name}__${tool}`}`;
  });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  call.response.once('close', () => {
    void transport.close().catch(() => undefined);
    void server.close().catch(() => undefined);
  });
  await server.connect(transport);
  await transport.handleRequest(call.request, call.response, call.body);
}

function exposedTools(call: RequestCall, name: string): ExposedTools {
  if (name === 'igw') {
    const tools = builtinToolsFor(toolContext(call));
    return { list: async () => tools, find: async (toolName) => tools.find((tool) => tool.name === toolName) };
  }
  const upstream = call.app.mcpServers.get(name);
  if (upstream === undefined) {
    const configured = call.app.mcpServers.all().map((server) => server.name);
    throw new GatewayError('RESOURCE_5404', `No MCP server "${name}": use /v1/mcp/igw${configured.length === 0 ? '' : ` or one of ${configured.map((server) => `/v1/mcp/${server}`).join(', ')}`} (configured under mcp_servers).`);
  }
  return {
    list: async () => (await upstream.listTools(call.signal)).map((tool) => mcpTool(upstream, tool, tool.name)),
    find: async (toolName) => {
      const tool = (await upstream.listTools(call.signal)).find((candidate) => candidate.name === toolName);
      return tool === undefined ? undefined : mcpTool(upstream, tool, tool.name);
    },
  };
}
