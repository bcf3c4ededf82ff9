import { flatFunctionName } from './namespaced-names.js';
import type { McpListedTool, McpToolDefinition, McpToolFilter, OutputMcpApprovalRequestItem, OutputMcpCallItem, OutputMcpListToolsItem } from './types.js';

/**
 * The Responses `mcp` tool (OpenAI's Tool.Mcp; issue 20 item 3) as igw serves it on the chat hub:
 * igw lists the server's tools (an `mcp_list_tools` item), offers each to the model as a
 * function named `server_label__tool` (the flat names of namespace tools, so a replayed
 * conversation keeps matching), runs the model's calls on the server (`mcp_call` items) or asks
 * the client first (`mcp_approval_request`). This module is the pure part: which tools are
 * offered, which need approval, and the items' shapes.
 */

/** A tool as the server listed it (MCP `tools/list`): annotations carry `readOnlyHint`. */
export interface ListedMcpTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, unknown> | undefined;
}

/** MCP content blocks as a tool result carries them (text, image, resource, …). */
export type McpContent = { type: string; [field: string]: unknown };

export function mcpFunctionName(serverLabel: string, tool: string): string {
  return flatFunctionName(serverLabel, tool);
}

function readOnly(tool: Pick<ListedMcpTool, 'annotations'>): boolean {
  return tool.annotations?.['readOnlyHint'] === true;
}

/** Whether a filter (`allowed_tools`, or one side of `require_approval`) names the tool. */
function filterMatches(filter: McpToolFilter, tool: Pick<ListedMcpTool, 'name' | 'annotations'>): boolean {
  if (Array.isArray(filter)) return filter.includes(tool.name);
  const byName = filter.tool_names === undefined || filter.tool_names.includes(tool.name);
  const byReadOnly = filter.read_only !== true || readOnly(tool);
  return byName && byReadOnly;
}

/** The tools the model is offered: all of them, or those `allowed_tools` lets through. */
export function offeredMcpTools<T extends Pick<ListedMcpTool, 'name' | 'annotations'>>(definition: McpToolDefinition, tools: readonly T[]): T[] {
  const filter = definition.allowed_tools;
  return filter == null ? [...tools] : tools.filter((tool) => filterMatches(filter, tool));
}

/**
 * Whether a call of `tool` waits for the client's approval (OpenAI: approval is the default).
 * "never" runs every call; `{never: {tool_names}}` runs the tools it names and asks for the
 * others; `{always: …}` asks for the tools it names; an object naming neither side asks.
 */
export function needsApproval(definition: McpToolDefinition, tool: Pick<ListedMcpTool, 'name' | 'annotations'>): boolean {
  const rule = definition.require_approval;
  if (rule === 'never') return false;
  if (rule == null || rule === 'always') return true;
  if (rule.always !== undefined && filterMatches(rule.always, tool)) return true;
  if (rule.never !== undefined && filterMatches(rule.never, tool)) return false;
  return true;
}

export function mcpListToolsItem(id: string, serverLabel: string, tools: readonly ListedMcpTool[], error?: string): OutputMcpListToolsItem {
  const listed: McpListedTool[] = tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema, annotations: tool.annotations ?? null }));
  return error === undefined ? { type: 'mcp_list_tools', id, server_label: serverLabel, tools: listed } : { type: 'mcp_list_tools', id, server_label: serverLabel, tools: listed, error };
}

export function mcpCallItem(id: string, serverLabel: string, name: string, args: string, outcome: { output: string } | { error: string } | null, approvalRequestId?: string): OutputMcpCallItem {
  const item: OutputMcpCallItem = {
    type: 'mcp_call',
    id,
    server_label: serverLabel,
    name,
    arguments: args,
    output: outcome !== null && 'output' in outcome ? outcome.output : null,
    error: outcome !== null && 'error' in outcome ? outcome.error : null,
    status: outcome === null ? 'in_progress' : 'error' in outcome ? 'failed' : 'completed',
  };
  if (approvalRequestId !== undefined) item.approval_request_id = approvalRequestId;
  return item;
}

export function mcpApprovalRequestItem(id: string, serverLabel: string, name: string, args: string): OutputMcpApprovalRequestItem {
  return { type: 'mcp_approval_request', id, server_label: serverLabel, name, arguments: args };
}

/** A tool result as the text the model reads (and `mcp_call.output` carries): text parts as they are, other parts as JSON. */
export function mcpResultText(content: readonly McpContent[]): string {
  return content.map((part) => (part.type === 'text' && typeof part['text'] === 'string' ? part['text'] : JSON.stringify(part))).join('\n');
}

/** What the model reads for a call that did not produce output. */
export function mcpErrorText(error: string): string {
  return `Error: ${error}`;
}
