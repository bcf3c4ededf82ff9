import type { ChatMessage, ChatRequest, ContentPart, FunctionTool, TextPart, ToolCall, ToolChoice } from '../chat/types.js';
import { flatFunctionName } from '../responses/namespaced-names.js';
import { isServerTool } from './translation-plan.js';
import type { MessagesImageBlock, MessagesRequest, MessagesRequestMessage, MessagesTextBlock, MessagesTool, MessagesToolChoice, MessagesToolResultBlock } from './types.js';

/**
 * /v1/messages request → hub ChatRequest (spec "POST /v1/messages"). Only hub fields come out:
 * Anthropic-only fields (cache_control, metadata other than user_id, anything else the schema
 * let through) are dropped here and never reach an OpenAI-compatible upstream.
 *
 * Rules (each one has a row in test/unit/translate/messages/messages-to-chat.test.ts):
 * - `system` string or text blocks → one leading system message (blocks joined by a blank line);
 * - user text/image blocks → content parts (image base64 → data URI, url → image_url as is; the
 *   endpoint inlines and checks both like chat images); a single text block → plain string;
 * - assistant text + tool_use blocks → one assistant message, tool_calls with
 *   `arguments = JSON.stringify(input)`;
 * - user tool_result blocks → `tool` messages placed first in that turn, i.e. right after the
 *   assistant turn that called them (the OpenAI wire requires it); the rest of the user turn
 *   follows as a user message. Result content is a string or text blocks (joined); images inside
 *   a result move to that following user message; `is_error: true` prefixes the text with
 *   "Error: " (the OpenAI wire has no error flag);
 * - tools → function tools (input_schema → parameters); tool_choice auto → auto, any → required,
 *   none → none, tool → named function; disable_parallel_tool_use → parallel_tool_calls false;
 * - stop_sequences → stop; max_tokens, temperature, top_p, top_k copied; metadata.user_id → user;
 * - a `role: "system"` message inside `messages` → a system message at that point;
 * - output_config.effort → reasoning_effort (xhigh and max → high, the hub's top);
 *   output_config.format (or the beta output_format) → response_format json_schema;
 *   tools[].strict → function.strict;
 * - mcp_tool_use / mcp_tool_result blocks (calls igw ran on `mcp_servers`) → a call of the
 *   `server__tool` function and its tool message, in place inside the assistant turn;
 * - thinking blocks of earlier turns and Anthropic server tools are not carried (see
 *   translation-plan.ts, which names or refuses them before this runs).
 */
export function messagesToChat(request: MessagesRequest, upstreamModelName: string = request.model, imageFields?: Map<string, string>): ChatRequest {
  const messages: ChatMessage[] = [];
  const system = systemText(request.system);
  if (system !== undefined) messages.push({ role: 'system', content: system });
  request.messages.forEach((message, messageIndex) => {
    if (message.role === 'system') {
      const text = systemText(typeof message.content === 'string' ? message.content : (message.content ?? []).filter((block): block is MessagesTextBlock => block.type === 'text'));
      if (text !== undefined) messages.push({ role: 'system', content: text });
      return;
    }
    for (const converted of convertMessage(message, `messages[${messageIndex}]`)) {
      // Where each image part came from, so a problem found later on the hub request (URL
      // fetch, bad data) names the client's block: hub field → surface field.
      if (imageFields !== undefined && converted.role === 'user' && Array.isArray(converted.content)) {
        converted.content.forEach((part, partIndex) => {
          const source = (part as ContentPart & { [SOURCE]?: string })[SOURCE];
          if (source !== undefined) imageFields.set(`messages[${messages.length}].content[${partIndex}].image_url.url`, source);
        });
      }
      messages.push(converted);
    }
  });

  const chat: ChatRequest = { model: upstreamModelName, messages, max_tokens: request.max_tokens };
  if (request.temperature !== undefined) chat.temperature = request.temperature;
  if (request.top_p !== undefined) chat.top_p = request.top_p;
  if (request.top_k !== undefined) chat.top_k = request.top_k;
  if (request.stop_sequences !== undefined && request.stop_sequences.length > 0) chat.stop = [...request.stop_sequences];
  const userId = request.metadata?.user_id;
  if (typeof userId === 'string' && userId !== '') chat.user = userId;
  const tools = (request.tools ?? []).filter((tool): tool is MessagesTool => !isServerTool(tool));
  if (tools.length > 0) chat.tools = tools.map(convertTool);
  if (request.tool_choice !== undefined) {
    chat.tool_choice = convertToolChoice(request.tool_choice);
    if ('disable_parallel_tool_use' in request.tool_choice && request.tool_choice.disable_parallel_tool_use === true) chat.parallel_tool_calls = false;
  }
  const effort = request.output_config?.effort;
  if (effort !== undefined && effort !== null) chat.reasoning_effort = effort === 'xhigh' || effort === 'max' ? 'high' : effort;
  const format = request.output_config?.format ?? request.output_format;
  if (format !== undefined && format !== null) chat.response_format = { type: 'json_schema', json_schema: { name: 'output', schema: format.schema, strict: true } };
  return chat;
}

/** The system prompt as one string, or undefined when there is none (empty text blocks included). */
export function systemText(system: MessagesRequest['system']): string | undefined {
  if (system === undefined) return undefined;
  const text = typeof system === 'string' ? system : system.map((block) => block.text).join('\n\n');
  return text === '' ? undefined : text;
}

/** Non-enumerable tag on image parts: the surface field they came from (never serialized). */
const SOURCE = Symbol('surface-field');

function convertMessage(message: Extract<MessagesRequestMessage, { role: 'user' | 'assistant' }>, path: string): ChatMessage[] {
  if (typeof message.content === 'string') {
    return [message.role === 'user' ? { role: 'user', content: message.content } : { role: 'assistant', content: message.content }];
  }
  if (message.role === 'assistant') {
    const converted: ChatMessage[] = [];
    let texts: string[] = [];
    let toolCalls: ToolCall[] = [];
    const flush = () => {
      if (texts.length === 0 && toolCalls.length === 0) return;
      // null content is only valid next to tool_calls on the OpenAI wire.
      const assistant: Extract<ChatMessage, { role: 'assistant' }> = { role: 'assistant', content: texts.length === 0 ? null : texts.join('') };
      if (toolCalls.length > 0) assistant.tool_calls = toolCalls;
      converted.push(assistant);
      texts = [];
      toolCalls = [];
    };
    for (const block of message.content) {
      if (block.type === 'text') texts.push(block.text);
      else if (block.type === 'tool_use') toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
      else if (block.type === 'mcp_tool_use') {
        // A call igw ran on an `mcp_servers` server (endpoints/messages-mcp.ts): the `server__tool` function it was offered as.
        const use = block as { id?: unknown; name?: unknown; server_name?: unknown; input?: unknown };
        toolCalls.push({ id: String(use.id), type: 'function', function: { name: flatFunctionName(String(use.server_name), String(use.name)), arguments: JSON.stringify(use.input ?? {}) } });
      } else if (block.type === 'mcp_tool_result') {
        // Its result sits in the assistant turn (the server ran it): a tool message right after the call.
        const result = block as { tool_use_id?: unknown; is_error?: unknown; content?: unknown };
        flush();
        const text = typeof result.content === 'string' ? result.content : Array.isArray(result.content) ? result.content.map((part: { text?: unknown }) => (typeof part.text === 'string' ? part.text : '')).join('\n') : '';
        converted.push({ role: 'tool', tool_call_id: String(result.tool_use_id), content: result.is_error === true ? `Error: ${text}` : text });
      }
      // Other blocks are refused by validation (tool_result and image are user-only).
    }
    flush();
    // An empty turn stays ''.
    return converted.length === 0 ? [{ role: 'assistant', content: '' }] : converted;
  }

  const toolMessages: ChatMessage[] = [];
  const parts: ContentPart[] = [];
  message.content.forEach((block, blockIndex) => {
    const blockPath = `${path}.content[${blockIndex}]`;
    if (block.type === 'tool_result') {
      const { text, images } = toolResultContent(block);
      toolMessages.push({ role: 'tool', tool_call_id: block.tool_use_id, content: block.is_error === true ? `Error: ${text}` : text });
      images.forEach(({ image, index }) => parts.push(imagePart(image, `${blockPath}.content[${index}]`)));
    } else if (block.type === 'text') parts.push({ type: 'text', text: block.text });
    else if (block.type === 'image') parts.push(imagePart(block, blockPath));
  });
  if (parts.length === 0) return toolMessages;
  const onlyText = parts.every((part): part is TextPart => part.type === 'text');
  const content = onlyText && parts.length === 1 ? (parts[0] as TextPart).text : parts;
  return [...toolMessages, { role: 'user', content }];
}

function toolResultContent(block: MessagesToolResultBlock): { text: string; images: Array<{ image: MessagesImageBlock; index: number }> } {
  if (block.content === undefined) return { text: '', images: [] };
  if (typeof block.content === 'string') return { text: block.content, images: [] };
  const texts = block.content.filter((part): part is MessagesTextBlock => part.type === 'text').map((part) => part.text);
  const images = block.content.flatMap((part, index) => (part.type === 'image' ? [{ image: part, index }] : []));
  return { text: texts.join('\n'), images };
}

function imagePart(block: MessagesImageBlock, field: string): ContentPart {
  const url = block.source.type === 'base64' ? `data:${block.source.media_type};base64,${block.source.data}` : block.source.url;
  const part: ContentPart = { type: 'image_url', image_url: { url } };
  Object.defineProperty(part, SOURCE, { value: field, enumerable: false });
  return part;
}

function convertTool(tool: MessagesTool): FunctionTool {
  const converted: FunctionTool = { type: 'function', function: { name: tool.name, parameters: tool.input_schema } };
  if (tool.description !== undefined) converted.function.description = tool.description;
  if (tool.strict !== undefined) converted.function.strict = tool.strict;
  return converted;
}

function convertToolChoice(choice: MessagesToolChoice): ToolChoice {
  switch (choice.type) {
    case 'auto':
      return 'auto';
    case 'any':
      return 'required';
    case 'none':
      return 'none';
    case 'tool':
      return { type: 'function', function: { name: choice.name } };
    default: {
      const unknownChoice: never = choice;
      throw new Error(`unhandled tool_choice ${JSON.stringify(unknownChoice)}`);
    }
  }
}
