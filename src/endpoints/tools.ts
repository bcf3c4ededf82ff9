import { z } from 'zod';
import { toolServices } from '../app/tool-services.js';
import { responseHeaders, type RequestCall } from '../http/request-call.js';
import { sendJson } from '../http/respond.js';
import { findTool, listTools } from '../tools/registry.js';
import type { ToolContext } from '../tools/tool.js';
import { validateToolArguments } from '../tools/validate-arguments.js';
import { parseRequest } from './validation/parse.js';

const invokeSchema = z.object({ arguments: z.unknown().optional() }).strict();

export function toolContext(call: RequestCall): ToolContext {
  return { services: toolServices(call.app), principal: call.principal, accountId: call.account.id, plan: call.plan, signal: call.signal };
}

/** GET /v1/tools (scope kit.tools; DESIGN §7): every tool igw can run for this key, with its JSON Schema. */
export async function handleListTools(call: RequestCall): Promise<void> {
  const { tools, unavailable } = await listTools(toolContext(call), call.app.mcpServers);
  const headers: Record<string, string> = unavailable.length === 0 ? {} : { 'igw-unavailable-mcp-servers': unavailable.join(', ') };
  sendJson(
    call.response,
    200,
    { object: 'list', data: tools.map((tool) => ({ object: 'tool', name: tool.name, description: tool.description, input_schema: tool.inputSchema, source: tool.source })) },
    responseHeaders(call, headers),
  );
}

/**
 * POST /v1/tools/{name}/invoke with `{arguments}`: the arguments are checked against the tool's
 * schema, then it runs. A tool that ran and failed answers 200 with `is_error: true` (the MCP
 * convention: the failure is for the model to read); a tool that could not run is an error envelope.
 */
export async function handleInvokeTool(call: RequestCall): Promise<void> {
  const body = parseRequest(invokeSchema, call.body);
  const context = toolContext(call);
  const tool = await findTool(context, call.app.mcpServers, call.params['name']!);
  call.log.model = `tool:${tool.name}`;
  const args = validateToolArguments(tool.name, tool.inputSchema, body.arguments ?? {});
  const result = await tool.invoke(args, context);
  sendJson(
    call.response,
    200,
    {
      object: 'tool.result',
      tool: tool.name,
      source: tool.source,
      is_error: result.isError,
      content: result.content,
      ...(result.structuredContent === undefined ? {} : { structured_content: result.structuredContent }),
    },
    responseHeaders(call),
  );
}
