import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isGatewayError } from '../errors/gateway-error.js';
import type { GatewayTool, ToolContext } from '../tools/tool.js';
import { validateToolArguments } from '../tools/validate-arguments.js';
import { VERSION } from '../util/version.js';

export interface ExposedTools {
  list(): Promise<GatewayTool[]>;
  /** The tool a tools/call names, or undefined. */
  find(name: string): Promise<GatewayTool | undefined>;
}

/**
 * An MCP server (official SDK, low-level `Server`: the tools' JSON Schemas pass through as they
 * are) that offers `tools` to one authenticated caller. Invalid arguments are a JSON-RPC
 * InvalidParams error; a tool that could not run (its server down, a refusal) is a tool result
 * with `isError`, so the model reads why; `onCall` lets the endpoint log each call.
 */
export function gatewayMcpServer(name: string, tools: ExposedTools, context: ToolContext, onCall: (tool: string) => void): Server {
  const server = new Server({ name: name === 'igw' ? 'igw' : `igw/${name}`, version: VERSION }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: (await tools.list()).map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = await tools.find(request.params.name);
    if (tool === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown tool "${request.params.name}"; tools/list shows the tools of this server.`);
    onCall(tool.name);
    let args: Record<string, unknown>;
    try {
      args = validateToolArguments(tool.name, tool.inputSchema, request.params.arguments ?? {});
    } catch (error) {
      throw new McpError(ErrorCode.InvalidParams, (error as Error).message);
    }
    try {
      const result = await tool.invoke(args, context);
      return { content: result.content as CallToolResult['content'], isError: result.isError, ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }) };
    } catch (error) {
      if (!isGatewayError(error)) throw error;
      return { content: [{ type: 'text', text: `${error.code}: ${error.message}` }], isError: true };
    }
  });
  return server;
}
