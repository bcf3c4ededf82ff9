import { requireScope } from '../auth/scopes.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { RequestCall } from '../http/request-call.js';
import type { UpstreamMcpServer, UpstreamTool } from '../mcp/upstream-server.js';
import type { ChatMessage, ToolCall } from '../translate/chat/types.js';
import { mcpApprovalRequestItem, mcpCallItem, mcpErrorText, mcpFunctionName, mcpListToolsItem, needsApproval, offeredMcpTools } from '../translate/responses/mcp-items.js';
import { itemId } from '../translate/responses/output-items.js';
import { withMcpTools, type ToolPlan } from '../translate/responses/tools.js';
import type { McpCallInputItem, McpToolDefinition, OutputMcpApprovalRequestItem, OutputMcpCallItem, ResponsesInputItem, ResponsesOutputItem, ResponsesRequest } from '../translate/responses/types.js';
import { callMcpTool, connectMcpUrl } from './mcp-tool-calls.js';

/** One mcp tool of the request, connected and listed. */
interface McpServerTools {
  definition: McpToolDefinition;
  server: UpstreamMcpServer;
  /** The tools the model is offered (allowed_tools applied). */
  tools: UpstreamTool[];
}

/** What a model's call of an MCP tool came to: its output item, and the tool message for the next turn. */
export interface McpCallOutcome {
  item: OutputMcpCallItem;
  message: ChatMessage;
}

/**
 * The request's `mcp` tools for one /v1/responses call (issue 20 item 3): connected, listed and
 * offered to the model; calls run on the server or wait for the client's approval.
 */
export interface McpSession {
  /** Whether a call is of one of the session's MCP tools (a `label__tool` function). */
  owns(call: ToolCall): boolean;
  /** Whether the call must be approved by the client first. */
  needsApproval(call: ToolCall): boolean;
  /** The approval request for a call at `outputIndex` (the answer then ends: the client approves in its next request). */
  approvalRequest(call: ToolCall, outputIndex: number): OutputMcpApprovalRequestItem;
  /** The call's item while it runs (the stream opens it before the server answers). */
  pending(call: ToolCall, outputIndex: number): OutputMcpCallItem;
  /** Runs the call on its server. A tool that fails (crash, timeout, refusal, isError) is an mcp_call with `error`; only an abort throws. */
  run(call: ToolCall, outputIndex: number): Promise<McpCallOutcome>;
}

export interface PreparedMcp {
  /** The request with approved (or denied) approval requests replaced by the mcp_call they became. */
  request: ResponsesRequest;
  /** The plan with every listed tool offered as a function. */
  tools: ToolPlan;
  session: McpSession;
  /** Output items made before the first model turn: listings, then the approved calls run now. */
  leading: ResponsesOutputItem[];
}

/**
 * Connects and lists every mcp tool of the request (kit.mcp scope required), and runs the calls
 * the client approved with `mcp_approval_response` items (the request carries the approval
 * request it answers, so no previous_response_id is needed). A server that cannot be listed is
 * the spec's upstream error (INFERENCE_3105 / 3107) before any output; a refused URL is a 400.
 * Returns undefined when the request has no mcp tool.
 */
export async function prepareMcp(call: RequestCall, request: ResponsesRequest, tools: ToolPlan, responseId: string): Promise<PreparedMcp | undefined> {
  if (tools.mcp.length === 0) {
    if (Array.isArray(request.input) && request.input.some((item) => item.type === 'mcp_approval_response')) {
      throw new GatewayError('VALIDATION_4005', 'The input answers an MCP approval request, but the request has no mcp tool to run it: send the same mcp tool again.', { field: 'tools' });
    }
    return undefined;
  }
  requireScope(call.principal.scopes, 'kit.mcp');
  const requestTools = request.tools ?? [];
  const servers = new Map<string, McpServerTools>();
  await Promise.all(
    tools.mcp.map(async (definition) => {
      const server = await connect(call, definition, requestTools.indexOf(definition));
      const listed = await server.listTools(call.signal);
      servers.set(definition.server_label, { definition, server, tools: offeredMcpTools(definition, listed) });
    }),
  );
  const input = Array.isArray(request.input) ? request.input : [];
  const leading: ResponsesOutputItem[] = [];
  for (const definition of tools.mcp) {
    // A listing the client sent back is not repeated (as OpenAI does); the tools are listed anyway to offer them.
    if (input.some((item) => item.type === 'mcp_list_tools' && item.server_label === definition.server_label)) continue;
    const entry = servers.get(definition.server_label)!;
    leading.push(mcpListToolsItem(itemId('mcp_list_tools', responseId, leading.length), definition.server_label, entry.tools));
  }
  const session = mcpSession(call, servers, responseId);
  const answered = await runApproved(session, servers, input, leading);
  const plan = withMcpTools(
    tools,
    tools.mcp.map((definition) => ({ serverLabel: definition.server_label, tools: servers.get(definition.server_label)!.tools })),
  );
  return { request: answered === input ? request : { ...request, input: answered }, tools: plan, session, leading };
}

/** The server an mcp tool names: its server_url (SSRF-guarded, closed with the request), or the configured `mcp_servers` entry of its label. */
async function connect(call: RequestCall, definition: McpToolDefinition, index: number): Promise<UpstreamMcpServer> {
  const field = `tools[${index}]`;
  if (definition.connector_id !== undefined) throw new GatewayError('VALIDATION_4005', `${field}.connector_id names an OpenAI connector, which runs on OpenAI's servers; give a server_url or a configured MCP server instead.`, { field: `${field}.connector_id` });
  if (definition.tunnel_id !== undefined) throw new GatewayError('VALIDATION_4005', `${field}.tunnel_id names an OpenAI tunnel; give a server_url igw can reach instead.`, { field: `${field}.tunnel_id` });
  if (definition.server_url === undefined) {
    const configured = call.app.mcpServers.get(definition.server_label);
    if (configured !== undefined) return configured;
    const names = call.app.mcpServers.all().map((server) => server.name);
    throw new GatewayError('VALIDATION_4005', `${field} has no server_url and "${definition.server_label}" is not a configured MCP server${names.length === 0 ? '' : ` (configured: ${names.join(', ')})`}.`, { field: `${field}.server_url` });
  }
  const headers: Record<string, string> = { ...(definition.headers ?? {}) };
  if (definition.authorization !== undefined) headers['authorization'] = `Bearer ${definition.authorization}`;
  return connectMcpUrl(call, definition.server_label, definition.server_url, headers, `${field}.server_url`);
}

function mcpSession(call: RequestCall, servers: ReadonlyMap<string, McpServerTools>, responseId: string): McpSession {
  const target = (toolCall: ToolCall): { entry: McpServerTools; tool: UpstreamTool } | undefined => {
    for (const entry of servers.values()) {
      const tool = entry.tools.find((candidate) => mcpFunctionName(entry.definition.server_label, candidate.name) === toolCall.function.name);
      if (tool !== undefined) return { entry, tool };
    }
    return undefined;
  };
  const nameOf = (toolCall: ToolCall) => {
    const found = target(toolCall);
    return found === undefined ? { serverLabel: '', name: toolCall.function.name } : { serverLabel: found.entry.definition.server_label, name: found.tool.name };
  };
  return {
    owns: (toolCall) => target(toolCall) !== undefined,
    needsApproval(toolCall) {
      const found = target(toolCall);
      return found !== undefined && needsApproval(found.entry.definition, found.tool);
    },
    approvalRequest(toolCall, outputIndex) {
      const { serverLabel, name } = nameOf(toolCall);
      return mcpApprovalRequestItem(itemId('mcp_approval_request', responseId, outputIndex), serverLabel, name, toolCall.function.arguments);
    },
    pending(toolCall, outputIndex) {
      const { serverLabel, name } = nameOf(toolCall);
      return mcpCallItem(itemId('mcp_call', responseId, outputIndex), serverLabel, name, toolCall.function.arguments, null);
    },
    async run(toolCall, outputIndex) {
      const found = target(toolCall);
      const { serverLabel, name } = nameOf(toolCall);
      const outcome = found === undefined ? { error: `No MCP tool "${toolCall.function.name}" is offered.` } : await callMcpTool(call, '/v1/responses', found.entry.definition.server_label, found.entry.server, found.tool, toolCall.function.arguments);
      const item = mcpCallItem(itemId('mcp_call', responseId, outputIndex), serverLabel, name, toolCall.function.arguments, outcome);
      const content = 'output' in outcome ? outcome.output : mcpErrorText(outcome.error);
      return { item, message: { role: 'tool', tool_call_id: toolCall.id, content } };
    },
  };
}

/**
 * The client's answers to earlier approval requests: an approved call runs now (its mcp_call
 * item leads the output and carries approval_request_id); a denied one is told to the model as
 * a call that did not run. Each answered request is replaced in the input by the mcp_call it
 * became, so the model sees its call and the result in place. A call already run (an mcp_call
 * with that approval_request_id in the input) is not run again.
 */
async function runApproved(session: McpSession, servers: ReadonlyMap<string, McpServerTools>, input: ResponsesInputItem[], leading: ResponsesOutputItem[]): Promise<ResponsesInputItem[]> {
  const answers = new Map<string, { approve: boolean; index: number }>();
  input.forEach((item, index) => {
    if (item.type === 'mcp_approval_response') answers.set(item.approval_request_id, { approve: item.approve, index });
  });
  if (answers.size === 0) return input;
  const alreadyRun = new Set(input.flatMap((item) => (item.type === 'mcp_call' && item.approval_request_id != null ? [item.approval_request_id] : [])));
  const requests = new Map(input.flatMap((item) => (item.type === 'mcp_approval_request' ? [[item.id, item] as const] : [])));
  for (const [requestId, answer] of answers) {
    if (!requests.has(requestId)) {
      throw new GatewayError('VALIDATION_4005', `input[${answer.index}] answers the approval request "${requestId}", which is not in the input: send the mcp_approval_request item with its answer.`, { field: `input[${answer.index}].approval_request_id` });
    }
  }
  const replaced: ResponsesInputItem[] = [];
  for (const item of input) {
    if (item.type !== 'mcp_approval_request') {
      replaced.push(item);
      continue;
    }
    const answer = answers.get(item.id);
    if (answer === undefined || alreadyRun.has(item.id)) {
      // Unanswered (the translation drops it), or already run (its mcp_call follows in the input).
      replaced.push(item);
      continue;
    }
    if (!servers.has(item.server_label)) {
      throw new GatewayError('VALIDATION_4005', `The approved call "${item.id}" is for the MCP server "${item.server_label}", which is not among the request's mcp tools.`, { field: 'tools' });
    }
    const toolCall: ToolCall = { id: item.id, type: 'function', function: { name: mcpFunctionName(item.server_label, item.name), arguments: item.arguments } };
    let became: McpCallInputItem;
    if (answer.approve) {
      const { item: done } = await session.run(toolCall, leading.length);
      const withApproval = { ...done, approval_request_id: item.id };
      leading.push(withApproval);
      became = withApproval;
    } else {
      became = { type: 'mcp_call', id: item.id, server_label: item.server_label, name: item.name, arguments: item.arguments, error: 'The user did not approve this call, so it did not run.', approval_request_id: item.id };
    }
    replaced.push(became);
  }
  return replaced;
}
