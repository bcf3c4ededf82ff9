import { GatewayError } from '../../errors/gateway-error.js';
import { ANTHROPIC_ONLY_BLOCK_TYPES, ANTHROPIC_ONLY_RESULT_BLOCK_TYPES, type MessagesRequest, type MessagesServerTool, type MessagesTool } from './types.js';

/**
 * What translating a /v1/messages request to the chat hub cannot carry (DESIGN §5 "Forward
 * compatibility"). A native Anthropic upstream gets all of it; a translated call either drops a
 * field and names it (igw-ignored-params) or, when dropping it would silently change the
 * answer, refuses it by name. Unknown names (parseForwardCompatible) join `ignored` at the
 * endpoint. cache_control and citations stay silently dropped (spec "POST /v1/messages").
 */
export interface MessagesTranslationPlan {
  /** Declared fields the hub has no place for and whose loss leaves the answer's meaning intact. */
  ignored: string[];
  /** The first field whose loss would change the answer; thrown when the call is translated. */
  refusal: GatewayError | undefined;
}

/**
 * Top-level fields about how or where Anthropic serves the call (tier, speed, region, billing,
 * server-side context editing, workspace), not about what the answer says.
 */
const SERVING_FIELDS = [
  'service_tier',
  'speed',
  'inference_geo',
  'diagnostics',
  'container',
  'billing_policy',
  'fallback_credit_token',
  'fallbacks',
  'user_profile_id',
  'workspace_id',
  'context_management',
  'compaction',
] as const;

/** Tool hints for Anthropic's own tool runner: streaming granularity, examples, deferred loading, callers. */
const TOOL_HINTS = ['eager_input_streaming', 'input_examples', 'defer_loading', 'allowed_callers'] as const;

export function planMessagesTranslation(request: MessagesRequest, options: { reasoning: boolean }): MessagesTranslationPlan {
  const ignored: string[] = [];
  let refusal: GatewayError | undefined;
  const refuse = (field: string, message: string) => {
    refusal ??= new GatewayError('VALIDATION_4005', message, { field });
  };
  const present = (value: unknown) => value !== undefined && value !== null;

  for (const field of SERVING_FIELDS) if (present(request[field])) ignored.push(field);
  // Extended thinking changes how much the model reasons, not what the answer is; the hub has
  // no budget field (output_config.effort is the honoured way to ask for reasoning).
  const thinking = request['thinking'] as { type?: unknown } | undefined | null;
  if (present(thinking) && thinking?.type !== 'disabled') ignored.push('thinking');
  if (present(request.output_config?.effort) && !options.reasoning) ignored.push('output_config.effort');
  if (present(request.output_config?.task_budget)) ignored.push('output_config.task_budget');

  // mcp_servers are run by igw on a translated route, streamed or not (endpoints/messages-mcp.ts).
  if (present(request['thread'])) {
    refuse('thread', '"thread" continues a conversation held by Anthropic\'s servers, which only a model routed to an Anthropic-kind provider has; send the whole conversation in "messages" instead.');
  }

  (request.tools ?? []).forEach((tool, index) => {
    if (isServerTool(tool)) {
      refuse(
        `tools[${index}]`,
        `tools[${index}] of type "${tool.type}" is a tool Anthropic's servers run; only a model routed to an Anthropic-kind provider can offer it. Remove it or define a custom tool (input_schema) the client runs.`,
      );
      return;
    }
    for (const hint of TOOL_HINTS) if (present(tool[hint])) ignored.push(`tools[${index}].${hint}`);
  });

  request.messages.forEach((message, messageIndex) => {
    if (message.role === 'system') {
      // Beta options of a mid-conversation system message: when it stops applying, its effort.
      if (present(message.clear_at)) ignored.push(`messages[${messageIndex}].clear_at`);
      if (present(message.output_config)) ignored.push(`messages[${messageIndex}].output_config`);
      if (typeof message.content === 'string') return;
      (message.content ?? []).forEach((block, blockIndex) => {
        if (block.type !== 'text') {
          refuse(
            `messages[${messageIndex}].content[${blockIndex}]`,
            `messages[${messageIndex}].content[${blockIndex}] (${block.type}) changes the tools offered in the middle of the conversation, which only a model routed to an Anthropic-kind provider supports; send the full tool list in "tools" instead.`,
          );
        }
      });
      return;
    }
    if (typeof message.content === 'string') return;
    message.content.forEach((block, blockIndex) => {
      const path = `messages[${messageIndex}].content[${blockIndex}]`;
      // Earlier reasoning is signed for Anthropic's own models; another model cannot use it.
      if (isAnthropicOnly(block)) refuse(path, onlyAnthropicReads(path, block.type));
      else if (block.type === 'thinking' || block.type === 'redacted_thinking') ignored.push(`messages[].content[${block.type}]`);
      else if (block.type === 'tool_use') {
        if (present(block.caller)) ignored.push(`${path}.caller`);
        if (present(block.toolset_name)) ignored.push(`${path}.toolset_name`);
      } else if (block.type === 'tool_result') {
        if (present(block.toolset_name)) ignored.push(`${path}.toolset_name`);
        if (Array.isArray(block.content)) {
          block.content.forEach((part, partIndex) => {
            if (isAnthropicOnly(part)) refuse(`${path}.content[${partIndex}]`, onlyAnthropicReads(`${path}.content[${partIndex}]`, part.type));
          });
        }
      }
      else if (block.type === 'image' && present(block.transformations)) ignored.push(`${path}.transformations`);
    });
  });
  return { ignored, refusal };
}

/** Blocks of calls igw itself ran on `mcp_servers`: translated back (messages-to-chat.ts), not refused. */
const IGW_RUN_BLOCK_TYPES: readonly string[] = ['mcp_tool_use', 'mcp_tool_result'];

function isAnthropicOnly(block: { type: string }): boolean {
  if (IGW_RUN_BLOCK_TYPES.includes(block.type)) return false;
  return (ANTHROPIC_ONLY_BLOCK_TYPES as readonly string[]).includes(block.type) || (ANTHROPIC_ONLY_RESULT_BLOCK_TYPES as readonly string[]).includes(block.type);
}

function onlyAnthropicReads(field: string, type: string): string {
  return `${field} is a "${type}" block, which only a model routed to an Anthropic-kind provider can read; leaving it out would change the answer. Send its content as text, or pick such a model.`;
}

/** A tool whose type names one of Anthropic's server-run tools (anything but a custom tool). */
export function isServerTool(tool: MessagesTool | MessagesServerTool): tool is MessagesServerTool {
  return tool.type !== undefined && tool.type !== null && tool.type !== 'custom';
}
