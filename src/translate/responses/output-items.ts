import type { ToolCall } from '../chat/types.js';
import type { NamespacedName } from './namespaced-names.js';
import type { ToolKind } from './tools.js';
import type {
  ApplyPatchOperation,
  FileSearchResult,
  OutputApplyPatchCallItem,
  OutputCustomToolCallItem,
  OutputFileSearchCallItem,
  OutputFunctionCallItem,
  OutputMessageItem,
  OutputReasoningItem,
  OutputShellCallItem,
  ResponsesOutputItem,
} from './types.js';

/**
 * Output item builders shared by the non-stream translation (chat-to-responses.ts) and the
 * stream state machine (stream/chat-to-response-events.ts), so both produce identical items.
 * Item ids are derived from the response id and the item's output index: unique within the
 * answer, stable, and the same whether the answer was streamed or not.
 */

const ITEM_PREFIX = { reasoning: 'rs', message: 'msg', function_call: 'fc', custom_tool_call: 'ctc', shell_call: 'sh', apply_patch_call: 'apc', file_search_call: 'fs', mcp_list_tools: 'mcpl', mcp_call: 'mcp', mcp_approval_request: 'mcpr' } as const;

export function itemId(kind: keyof typeof ITEM_PREFIX, responseId: string, outputIndex: number): string {
  return `${ITEM_PREFIX[kind]}_${responseId.replace(/^resp_/, '')}_${outputIndex}`;
}

/** What a reasoning model thought before answering (hub reasoning_content), as OpenAI's reasoning item with reasoning_text. */
export function reasoningItem(id: string, text: string): OutputReasoningItem {
  return { type: 'reasoning', id, status: 'completed', summary: [], content: [{ type: 'reasoning_text', text }] };
}

/** A message with its text as one output_text part (a provider refusal is text too, as on the other surfaces). */
export function messageItem(id: string, text: string, status: OutputMessageItem['status']): OutputMessageItem {
  return { type: 'message', id, role: 'assistant', status, content: [{ type: 'output_text', text, annotations: [] }] };
}

/**
 * A completed model tool call as the item its kind calls for (file_search and mcp calls are built
 * by the runner); `namespaced` names the flat function names that stand for namespace functions.
 */
export function toolCallItem(call: ToolCall, kind: Exclude<ToolKind, 'file_search' | 'mcp'>, responseId: string, outputIndex: number, namespaced?: ReadonlyMap<string, NamespacedName>): ResponsesOutputItem {
  switch (kind) {
    case 'function':
      return functionCallItem(itemId('function_call', responseId, outputIndex), call, 'completed', namespaced);
    case 'custom':
      return customToolCallItem(itemId('custom_tool_call', responseId, outputIndex), call, namespaced);
    case 'shell':
      return shellCallItem(itemId('shell_call', responseId, outputIndex), call);
    case 'apply_patch':
      return applyPatchCallItem(itemId('apply_patch_call', responseId, outputIndex), call);
    default: {
      const unknownKind: never = kind;
      throw new Error(`unhandled tool kind ${String(unknownKind)}`);
    }
  }
}

/** A function call; a namespace function's call carries its own name and its `namespace` (as OpenAI sends it). */
export function functionCallItem(id: string, call: ToolCall, status: OutputFunctionCallItem['status'], namespaced?: ReadonlyMap<string, NamespacedName>): OutputFunctionCallItem {
  const member = namespaced?.get(call.function.name);
  const item: OutputFunctionCallItem = { type: 'function_call', id, call_id: call.id, name: member?.name ?? call.function.name, arguments: call.function.arguments, status };
  if (member !== undefined) item.namespace = member.namespace;
  return item;
}

/** A custom tool's call: the text the model put in the function's `input` argument. */
function customToolCallItem(id: string, call: ToolCall, namespaced?: ReadonlyMap<string, NamespacedName>): OutputCustomToolCallItem {
  const member = namespaced?.get(call.function.name);
  const input = parseObject(call.function.arguments)['input'];
  const item: OutputCustomToolCallItem = { type: 'custom_tool_call', id, call_id: call.id, name: member?.name ?? call.function.name, input: typeof input === 'string' ? input : '', status: 'completed' };
  if (member !== undefined) item.namespace = member.namespace;
  return item;
}

function shellCallItem(id: string, call: ToolCall): OutputShellCallItem {
  const args = parseObject(call.function.arguments);
  const commands = Array.isArray(args['commands']) ? args['commands'].filter((command): command is string => typeof command === 'string') : [];
  // A weak model may send one command as a string.
  if (commands.length === 0 && typeof args['command'] === 'string') commands.push(args['command']);
  return {
    type: 'shell_call',
    id,
    call_id: call.id,
    action: { commands, timeout_ms: integerOrNull(args['timeout_ms']), max_output_length: integerOrNull(args['max_output_length']) },
    environment: null,
    status: 'completed',
  };
}

function applyPatchCallItem(id: string, call: ToolCall): OutputApplyPatchCallItem {
  const args = parseObject(call.function.arguments);
  const path = typeof args['path'] === 'string' ? args['path'] : '';
  const diff = typeof args['diff'] === 'string' ? args['diff'] : '';
  const type = args['type'] === 'delete_file' || args['type'] === 'create_file' ? args['type'] : 'update_file';
  const operation: ApplyPatchOperation = type === 'delete_file' ? { type, path } : { type, path, diff };
  return { type: 'apply_patch_call', id, call_id: call.id, operation, status: 'completed' };
}

export function fileSearchCallItem(id: string, query: string, status: OutputFileSearchCallItem['status'], results: FileSearchResult[] | null): OutputFileSearchCallItem {
  return { type: 'file_search_call', id, queries: [query], status, results };
}

/** The query of a file_search function call (empty when the model sent none). */
export function fileSearchQuery(call: ToolCall): string {
  const query = parseObject(call.function.arguments)['query'];
  return typeof query === 'string' ? query : '';
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function integerOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;
}
