import { hubReasoningEffort } from '../chat/reasoning-effort.js';
import type { ChatMessage, ChatRequest, ContentPart, TextPart, ToolCall } from '../chat/types.js';
import { fileSearchResultsText } from './file-search-text.js';
import { mcpErrorText, mcpFunctionName } from './mcp-items.js';
import { flatFunctionName } from './namespaced-names.js';
import { allowedFunctions, hubToolChoice, type ToolPlan } from './tools.js';
import type { InputImagePart, InputTextPart, ResponsesInputItem, ResponsesRequest } from './types.js';

/**
 * /v1/responses request → hub ChatRequest (spec "POST /v1/responses"). Only hub fields come out.
 *
 * Rules (each has a row in test/unit/translate/responses/responses-to-chat.test.ts):
 * - `instructions` → a leading system message; a string `input` → one user message;
 * - message items keep their role (system, developer, user, assistant); input_text → text parts,
 *   input_image → image_url parts (the endpoint fetches and checks them like chat images); a
 *   single text part becomes a plain string;
 * - consecutive tool calls (function_call, shell_call, apply_patch_call, file_search_call) form
 *   one assistant message with tool_calls, joined to a directly preceding assistant text turn;
 *   built-in calls are calls of their function (tools.ts) with the item's fields as arguments;
 *   a function_call with a `namespace` is a call of the flat name (namespaced-names.ts); a
 *   custom_tool_call is a call of its function with `{input}` as arguments;
 * - outputs (function_call_output, custom_tool_call_output, shell_call_output,
 *   apply_patch_call_output) → tool messages;
 *   images in a function output follow in a user message (the chat wire has no tool images);
 *   a file_search_call item also yields its results as the tool message;
 * - an mcp_call item is a call of its `label__tool` function followed by its output (or error) as
 *   the tool message; mcp_list_tools, mcp_approval_request and mcp_approval_response are dropped
 *   (the endpoint lists afresh and runs approved calls before translating, endpoints/responses-mcp.ts);
 * - reasoning, web_search_call and tool-search items are dropped (nothing the hub can carry);
 * - max_output_tokens → max_tokens; reasoning.effort → reasoning_effort (nearest hub level); text.format →
 *   response_format; tools and tool_choice per tools.ts (allowed_tools: only those tools are
 *   offered, its mode is the choice); sampling parameters copied.
 */
export function responsesToChat(request: ResponsesRequest, upstreamModelName: string, tools: ToolPlan, imageFields?: Map<string, string>): ChatRequest {
  const messages: ChatMessage[] = [];
  if (request.instructions != null && request.instructions !== '') messages.push({ role: 'system', content: request.instructions });
  if (typeof request.input === 'string') {
    messages.push({ role: 'user', content: request.input });
  } else {
    request.input.forEach((item, index) => appendItem(messages, item, `input[${index}]`, imageFields));
  }

  const chat: ChatRequest = { model: upstreamModelName, messages };
  if (request.max_output_tokens != null) chat.max_tokens = request.max_output_tokens;
  if (request.temperature != null) chat.temperature = request.temperature;
  if (request.top_p != null) chat.top_p = request.top_p;
  if (request.frequency_penalty != null) chat.frequency_penalty = request.frequency_penalty;
  if (request.presence_penalty != null) chat.presence_penalty = request.presence_penalty;
  if (request.stop != null && request.stop.length > 0) chat.stop = request.stop;
  if (request.seed != null) chat.seed = request.seed;
  if (request.user !== undefined && request.user !== '') chat.user = request.user;
  const effort = request.reasoning?.effort == null ? undefined : hubReasoningEffort(request.reasoning.effort);
  if (effort !== undefined) chat.reasoning_effort = effort;
  const offered = allowedFunctions(tools, request.tool_choice);
  if (offered.length > 0) {
    chat.tools = offered;
    if (request.tool_choice !== undefined) chat.tool_choice = hubToolChoice(request.tool_choice);
    if (request.parallel_tool_calls != null) chat.parallel_tool_calls = request.parallel_tool_calls;
  }
  const format = request.text?.format;
  if (format !== undefined && format.type !== 'text') {
    if (format.type === 'json_object') chat.response_format = { type: 'json_object' };
    else {
      const schema: Extract<NonNullable<ChatRequest['response_format']>, { type: 'json_schema' }>['json_schema'] = { name: format.name, schema: format.schema };
      if (format.description !== undefined) schema.description = format.description;
      if (format.strict != null) schema.strict = format.strict;
      chat.response_format = { type: 'json_schema', json_schema: schema };
    }
  }
  return chat;
}

/** Non-enumerable tag on image parts: the surface field they came from (never serialized). */
const SOURCE = Symbol('surface-field');

function appendItem(messages: ChatMessage[], item: ResponsesInputItem, path: string, imageFields: Map<string, string> | undefined): void {
  switch (item.type) {
    case 'message': {
      if (item.role === 'assistant') {
        const text = typeof item.content === 'string' ? item.content : item.content.map((part) => (part.type === 'refusal' ? part.refusal : part.text)).join('');
        messages.push({ role: 'assistant', content: text });
        return;
      }
      if (item.role === 'user') {
        pushUser(messages, typeof item.content === 'string' ? item.content : contentParts(item.content, `${path}.content`), imageFields);
        return;
      }
      const text = typeof item.content === 'string' ? item.content : item.content.flatMap((part) => (part.type === 'input_text' ? [part.text] : [])).join('\n');
      messages.push({ role: item.role, content: text });
      return;
    }
    case 'function_call': {
      // A namespace function's earlier call goes back under the flat name it was offered as.
      const name = item.namespace != null && item.namespace !== '' ? flatFunctionName(item.namespace, item.name) : item.name;
      pushToolCall(messages, { id: item.call_id, type: 'function', function: { name, arguments: item.arguments } });
      return;
    }
    case 'custom_tool_call': {
      const name = item.namespace != null && item.namespace !== '' ? flatFunctionName(item.namespace, item.name) : item.name;
      pushToolCall(messages, { id: item.call_id, type: 'function', function: { name, arguments: JSON.stringify({ input: item.input }) } });
      return;
    }
    case 'shell_call':
      pushToolCall(messages, { id: item.call_id, type: 'function', function: { name: 'shell', arguments: JSON.stringify(item.action) } });
      return;
    case 'apply_patch_call':
      pushToolCall(messages, { id: item.call_id, type: 'function', function: { name: 'apply_patch', arguments: JSON.stringify(item.operation) } });
      return;
    case 'file_search_call': {
      const query = item.queries.join(' ');
      pushToolCall(messages, { id: item.id, type: 'function', function: { name: 'file_search', arguments: JSON.stringify({ query }) } });
      messages.push({ role: 'tool', tool_call_id: item.id, content: fileSearchResultsText(query, item.results) });
      return;
    }
    case 'function_call_output':
    case 'custom_tool_call_output': {
      if (typeof item.output === 'string') {
        messages.push({ role: 'tool', tool_call_id: item.call_id, content: item.output });
        return;
      }
      const text = item.output.flatMap((part) => (part.type === 'input_text' ? [part.text] : [])).join('\n');
      messages.push({ role: 'tool', tool_call_id: item.call_id, content: text });
      const images = item.output.flatMap((part, index) => (part.type === 'input_image' ? [imagePart(part, `${path}.output[${index}]`)] : []));
      if (images.length > 0) pushUser(messages, images, imageFields);
      return;
    }
    case 'shell_call_output':
      messages.push({ role: 'tool', tool_call_id: item.call_id, content: JSON.stringify(item.output) });
      return;
    case 'apply_patch_call_output':
      messages.push({ role: 'tool', tool_call_id: item.call_id, content: item.output != null && item.output !== '' ? `${item.status}: ${item.output}` : item.status });
      return;
    case 'mcp_call': {
      // The model's earlier call of an MCP tool and what came of it (the endpoint has already
      // turned approved mcp_approval_requests into such items).
      pushToolCall(messages, { id: item.id, type: 'function', function: { name: mcpFunctionName(item.server_label, item.name), arguments: item.arguments } });
      const content = item.error != null && item.error !== '' ? mcpErrorText(item.error) : (item.output ?? '');
      messages.push({ role: 'tool', tool_call_id: item.id, content });
      return;
    }
    // A listing is re-made on every request; an unanswered approval request is a call that
    // never ran (and its answer, once given, became an mcp_call above).
    case 'mcp_list_tools':
    case 'mcp_approval_request':
    case 'mcp_approval_response':
    case 'reasoning':
    case 'web_search_call':
    case 'tool_search_call':
    case 'tool_search_output':
    case 'additional_tools':
      return;
    default: {
      const unknownItem: never = item;
      throw new Error(`unhandled input item ${JSON.stringify(unknownItem)}`);
    }
  }
}

function contentParts(parts: ReadonlyArray<InputTextPart | InputImagePart>, path: string): string | ContentPart[] {
  const converted = parts.map((part, index): ContentPart => (part.type === 'input_text' ? { type: 'text', text: part.text } : imagePart(part, `${path}[${index}]`)));
  return converted.length === 1 && converted[0]!.type === 'text' ? (converted[0] as TextPart).text : converted;
}

function imagePart(part: InputImagePart, field: string): ContentPart {
  const converted: ContentPart = { type: 'image_url', image_url: part.detail === undefined ? { url: part.image_url } : { url: part.image_url, detail: part.detail } };
  Object.defineProperty(converted, SOURCE, { value: field, enumerable: false });
  return converted;
}

function pushUser(messages: ChatMessage[], content: string | ContentPart[], imageFields: Map<string, string> | undefined): void {
  if (imageFields !== undefined && Array.isArray(content)) {
    // Hub field → surface field, so a problem found later (URL fetch, bad data) names the client's part.
    content.forEach((part, partIndex) => {
      const source = (part as ContentPart & { [SOURCE]?: string })[SOURCE];
      if (source !== undefined) imageFields.set(`messages[${messages.length}].content[${partIndex}].image_url.url`, `${source}.image_url`);
    });
  }
  messages.push({ role: 'user', content });
}

/** Adds a call to the assistant turn right before it (text or calls), or starts one. */
function pushToolCall(messages: ChatMessage[], call: ToolCall): void {
  const last = messages[messages.length - 1];
  if (last?.role === 'assistant') {
    last.tool_calls = [...(last.tool_calls ?? []), call];
    if (last.content === '') last.content = null;
    return;
  }
  messages.push({ role: 'assistant', content: null, tool_calls: [call] });
}
