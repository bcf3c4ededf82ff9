import { requireScope } from '../auth/scopes.js';
import type { RequestCall } from '../http/request-call.js';
import { completeChat, type ChatPlan, type CompletedChat, type InferenceScope } from '../inference/index.js';
import type { UpstreamMcpServer, UpstreamTool } from '../mcp/upstream-server.js';
import type { ChatMessage, ChatResponse, ChatUsage, FunctionTool, ToolCall } from '../translate/chat/types.js';
import type { MessagesResponseBlock } from '../translate/messages/types.js';
import { parseToolInput } from '../translate/messages/chat-to-messages.js';
import { mcpErrorText } from '../translate/responses/mcp-items.js';
import { flatFunctionName } from '../translate/responses/namespaced-names.js';
import { callMcpTool, connectMcpUrl } from './mcp-tool-calls.js';
import { addUsage, continuedRequest, MAX_MODEL_TURNS, nextTurnPlan } from './responses-turns.js';

/** One `mcp_servers` entry of a /v1/messages request (beta mcp-client-2025-04-04), as validated. */
export interface MessagesMcpServer {
  type: 'url';
  url: string;
  name: string;
  authorization_token?: string | null;
  tool_configuration?: { enabled?: boolean | null; allowed_tools?: string[] | null } | null;
}

interface ListedServer {
  name: string;
  server: UpstreamMcpServer;
  tools: UpstreamTool[];
}

/**
 * The Messages API's `mcp_servers` run by igw (issue 20 item 3) on a translated route: each
 * enabled server is connected (SSRF-checked URL, `authorization_token` as a bearer token) and
 * listed, its allowed tools offered to the model as `server__tool` functions; the model's calls
 * run on the server and are reported as `mcp_tool_use` / `mcp_tool_result` blocks, as Anthropic
 * reports them. A native Anthropic route gets the client's body untouched instead.
 */
export interface MessagesMcp {
  /** The hub plan with the servers' tools offered. */
  plan: ChatPlan;
  /** The call (by its function name) is one of the servers' tools, which igw runs. */
  owns(call: { function: { name: string } }): boolean;
  run(call: ToolCall): Promise<{ blocks: MessagesResponseBlock[]; message: ChatMessage }>;
}

/**
 * Lists the request's servers when some route of the plan goes through the hub (a native
 * Anthropic route runs them itself); the kit.mcp scope is required then. Undefined when there
 * is nothing for igw to run.
 */
export async function prepareMessagesMcp(call: RequestCall, plan: ChatPlan, servers: readonly MessagesMcpServer[] | undefined, viaHub: boolean): Promise<MessagesMcp | undefined> {
  const enabled = (servers ?? []).map((server, index) => ({ server, index })).filter(({ server }) => server.tool_configuration?.enabled !== false);
  if (enabled.length === 0) return undefined;
  const translated = viaHub || plan.target.candidates.some((candidate) => call.app.providers.get(candidate.providerId).messages === undefined);
  if (!translated) return undefined;
  requireScope(call.principal.scopes, 'kit.mcp');
  const listed = await Promise.all(
    enabled.map(async ({ server, index }): Promise<ListedServer> => {
      const headers: Record<string, string> = server.authorization_token == null ? {} : { authorization: `Bearer ${server.authorization_token}` };
      const upstream = await connectMcpUrl(call, server.name, server.url, headers, `mcp_servers[${index}].url`);
      const allowed = server.tool_configuration?.allowed_tools;
      const tools = (await upstream.listTools(call.signal)).filter((tool) => allowed == null || allowed.includes(tool.name));
      return { name: server.name, server: upstream, tools };
    }),
  );
  const byFunction = new Map<string, { entry: ListedServer; tool: UpstreamTool }>();
  const functions: FunctionTool[] = [];
  for (const entry of listed) {
    for (const tool of entry.tools) {
      const name = flatFunctionName(entry.name, tool.name);
      byFunction.set(name, { entry, tool });
      functions.push({ type: 'function', function: tool.description === '' ? { name, parameters: tool.inputSchema } : { name, description: tool.description, parameters: tool.inputSchema } });
    }
  }
  const request = { ...plan.request, tools: [...(plan.request.tools ?? []), ...functions] };
  return {
    plan: { ...plan, request },
    owns: (toolCall) => byFunction.has(toolCall.function.name),
    async run(toolCall) {
      const { entry, tool } = byFunction.get(toolCall.function.name)!;
      const outcome = await callMcpTool(call, '/v1/messages', entry.name, entry.server, tool, toolCall.function.arguments);
      const text = 'output' in outcome ? outcome.output : outcome.error;
      const blocks: MessagesResponseBlock[] = [
        { type: 'mcp_tool_use', id: toolCall.id, name: tool.name, server_name: entry.name, input: parseToolInput(toolCall.function.arguments) },
        { type: 'mcp_tool_result', tool_use_id: toolCall.id, is_error: 'error' in outcome, content: [{ type: 'text', text }] },
      ];
      return { blocks, message: { role: 'tool', tool_call_id: toolCall.id, content: 'output' in outcome ? outcome.output : mcpErrorText(outcome.error) } };
    },
  };
}

export interface McpTurns {
  /** The last model turn, without the calls igw ran (and without its text when those calls ran). */
  final: CompletedChat;
  /** Blocks before the final turn's own: earlier text, each mcp_tool_use and its mcp_tool_result. */
  leading: MessagesResponseBlock[];
  usage: ChatUsage;
}

/**
 * The model turns after the first translated answer: while the model calls MCP tools, igw runs
 * them and lets it continue (bounded like /v1/responses). Client tools called beside MCP tools
 * end the answer (the client runs them); a tool that fails is an `mcp_tool_result` with
 * `is_error` the model reads. A provider failure on a later turn is the error envelope.
 */
export async function runMcpTurns(scope: InferenceScope, mcp: MessagesMcp, first: CompletedChat): Promise<McpTurns> {
  let plan = mcp.plan;
  let answered = first;
  let usage = first.response.usage;
  const leading: MessagesResponseBlock[] = [];
  for (let turn = 1; ; turn++) {
    const message = answered.response.choices[0]?.message;
    const calls = message?.tool_calls ?? [];
    const ours = calls.filter((toolCall) => mcp.owns(toolCall));
    if (ours.length === 0) break;
    if (message?.content != null && message.content !== '') leading.push({ type: 'text', text: message.content });
    const results: ChatMessage[] = [];
    for (const toolCall of ours) {
      const ran = await mcp.run(toolCall);
      leading.push(...ran.blocks);
      results.push(ran.message);
    }
    if (ours.length < calls.length || turn >= MAX_MODEL_TURNS) {
      answered = { ...answered, response: withoutCalls(answered.response, ours) };
      break;
    }
    plan = nextTurnPlan(plan, answered, continuedRequest(plan.request, answered.response, ours, results));
    answered = await completeChat(scope, plan);
    usage = addUsage(usage, answered.response.usage);
  }
  return { final: answered, leading, usage };
}

/** A turn whose MCP calls igw ran (and whose text is already a leading block): the client's calls only. */
function withoutCalls(response: ChatResponse, ran: readonly ToolCall[]): ChatResponse {
  const [choice, ...others] = response.choices;
  if (choice === undefined) return response;
  const remaining = (choice.message.tool_calls ?? []).filter((toolCall) => !ran.includes(toolCall));
  const message = { ...choice.message, content: null, tool_calls: remaining.length === 0 ? null : remaining };
  return { ...response, choices: [{ ...choice, message, finish_reason: remaining.length === 0 ? 'stop' : choice.finish_reason }, ...others] };
}
