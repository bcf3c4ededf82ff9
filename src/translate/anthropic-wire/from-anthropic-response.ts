import type { ChatResponse, ToolCall } from '../chat/types.js';
import { convertUsage } from './convert-usage.js';
import { mapStopReason } from './map-stop-reason.js';
import type { AnthropicResponse } from './types.js';

export interface AnthropicResponseOptions {
  /** Unix seconds for `created` (Anthropic sends no timestamp). */
  created: number;
  /** Used when the upstream sends no id / model. */
  fallbackId: string;
  fallbackModel: string;
  /** The forced structured-output tool of this request, if any (AnthropicRequestPlan). */
  structuredOutputTool?: string | undefined;
}

/**
 * Anthropic message → hub ChatResponse: text blocks joined into `content`, tool_use blocks into
 * `tool_calls` (arguments = the input as a JSON string), thinking blocks into
 * `reasoning_content`. Redacted thinking and block types igw does not request are left out.
 * The forced structured-output tool's input becomes the content instead of a tool call.
 */
export function fromAnthropicResponse(response: AnthropicResponse, options: AnthropicResponseOptions): ChatResponse {
  const texts: string[] = [];
  const thinking: string[] = [];
  const toolCalls: ToolCall[] = [];
  let answeredByTool = false;
  for (const block of response.content) {
    switch (block.type) {
      case 'text':
        texts.push(block.text);
        break;
      case 'thinking':
        thinking.push(block.thinking);
        break;
      case 'tool_use':
        if (options.structuredOutputTool !== undefined && block.name === options.structuredOutputTool) {
          texts.push(JSON.stringify(block.input ?? {}));
          answeredByTool = true;
        } else {
          toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
        }
        break;
      case 'redacted_thinking':
      case 'unknown':
        break;
      default: {
        const unexpected: never = block;
        void unexpected;
      }
    }
  }
  const reasoning = thinking.join('');
  return {
    id: nonEmpty(response.id) ?? options.fallbackId,
    object: 'chat.completion',
    created: options.created,
    model: nonEmpty(response.model) ?? options.fallbackModel,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          // OpenAI's shape: null when the turn is only tool calls, a string otherwise.
          content: texts.length > 0 ? texts.join('') : toolCalls.length > 0 ? null : '',
          tool_calls: toolCalls.length > 0 ? toolCalls : null,
          ...(reasoning === '' ? {} : { reasoning_content: reasoning }),
        },
        finish_reason: mapStopReason(response.stop_reason, answeredByTool && toolCalls.length === 0),
        logprobs: null,
      },
    ],
    usage: convertUsage(response.usage),
    system_fingerprint: null,
  };
}

function nonEmpty(value: string | null | undefined): string | undefined {
  return value === null || value === undefined || value === '' ? undefined : value;
}
