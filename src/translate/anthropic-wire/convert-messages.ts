import type { ChatMessage, ContentPart, TextPart, ToolCall } from '../chat/types.js';
import { convertImage } from './convert-image.js';
import { invalidForAnthropic } from './invalid-for-anthropic.js';
import type { AnthropicMessage, AnthropicRequestBlock, AnthropicTextBlock, AnthropicToolUseBlock } from './types.js';

export interface ConvertedMessages {
  system: string | AnthropicTextBlock[] | undefined;
  messages: AnthropicMessage[];
}

/**
 * Hub messages → Anthropic `system` + `messages`.
 *
 * - system and developer messages, wherever they stand, become the top-level `system` (a plain
 *   string when there is exactly one string, text blocks otherwise): Anthropic has no system role
 *   inside the conversation.
 * - tool messages become `tool_result` blocks in a user turn.
 * - Anthropic requires alternating roles, so consecutive turns of one role are merged into one
 *   message (several tool results, or tool results followed by the user's next words); inside a
 *   merged user turn the tool results go first, as Anthropic requires.
 * - assistant `tool_calls` become `tool_use` blocks with the parsed arguments as `input`.
 * Not carried: message `name` (no Anthropic field), assistant `reasoning_content` (Anthropic
 * only takes back thinking blocks with the signature it issued, which the hub does not keep),
 * and assistant turns with nothing in them (Anthropic refuses empty content).
 */
export function convertMessages(messages: readonly ChatMessage[]): ConvertedMessages {
  const systemTexts: Array<{ text: string; fromString: boolean }> = [];
  const turns: AnthropicMessage[] = [];

  const append = (turn: AnthropicMessage) => {
    const previous = turns.at(-1);
    if (previous === undefined || previous.role !== turn.role) {
      turns.push(turn);
      return;
    }
    const merged = [...asBlocks(previous.content), ...asBlocks(turn.content)];
    previous.content = turn.role === 'user' ? toolResultsFirst(merged) : merged;
  };

  messages.forEach((message, position) => {
    const field = `messages[${position}]`;
    switch (message.role) {
      case 'system':
      case 'developer':
        if (typeof message.content === 'string') {
          if (message.content !== '') systemTexts.push({ text: message.content, fromString: true });
        } else {
          for (const part of message.content) if (part.text !== '') systemTexts.push({ text: part.text, fromString: false });
        }
        return;
      case 'user':
        append({ role: 'user', content: typeof message.content === 'string' ? message.content : userBlocks(message.content, field) });
        return;
      case 'assistant': {
        const blocks: AnthropicRequestBlock[] = [...textBlocks(message.content)];
        (message.tool_calls ?? []).forEach((call, callPosition) => blocks.push(toolUse(call, `${field}.tool_calls[${callPosition}].function.arguments`)));
        if (blocks.length === 0) return;
        // A plain string answer stays a string (the shape Anthropic's own examples use).
        const onlyString = typeof message.content === 'string' && blocks.length === 1 && blocks[0]?.type === 'text';
        append({ role: 'assistant', content: onlyString ? (message.content as string) : blocks });
        return;
      }
      case 'tool':
        append({
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: anthropicToolId(message.tool_call_id),
              content: typeof message.content === 'string' ? message.content : message.content.map((part) => ({ type: 'text' as const, text: part.text })),
            },
          ],
        });
        return;
      default: {
        const unexpected: never = message;
        throw invalidForAnthropic(`${field}.role`, `Unsupported message role in "${field}": ${JSON.stringify((unexpected as { role?: unknown }).role)}.`);
      }
    }
  });

  if (turns.length === 0) {
    throw invalidForAnthropic('messages', 'The request has only system messages; this model\'s provider (kind anthropic) needs at least one user message.');
  }
  const system =
    systemTexts.length === 0
      ? undefined
      : systemTexts.length === 1 && systemTexts[0]!.fromString
        ? systemTexts[0]!.text
        : systemTexts.map((entry): AnthropicTextBlock => ({ type: 'text', text: entry.text }));
  return { system, messages: turns };
}

/**
 * Anthropic accepts tool_use ids matching ^[a-zA-Z0-9_-]+$; ids minted by other providers may
 * hold other characters (`functions.get_weather:0`). The same mapping is applied to the
 * assistant's tool_use and the tool message's tool_result, so the pair still matches.
 */
export function anthropicToolId(id: string): string {
  const cleaned = id.replace(/[^a-zA-Z0-9_-]/g, '_');
  return cleaned === '' ? '_' : cleaned;
}

function toolUse(call: ToolCall, field: string): AnthropicToolUseBlock {
  return { type: 'tool_use', id: anthropicToolId(call.id), name: call.function.name, input: parseArguments(call.function.arguments, field) };
}

/** Tool arguments are a JSON object in a string on the hub and a JSON object on Anthropic's wire. */
function parseArguments(text: string, field: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalidForAnthropic(field, `The tool call arguments at "${field}" are not valid JSON; this model's provider (kind anthropic) needs them as a JSON object.`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalidForAnthropic(field, `The tool call arguments at "${field}" are not a JSON object; this model's provider (kind anthropic) needs an object.`);
  }
  return parsed as Record<string, unknown>;
}

function userBlocks(parts: readonly ContentPart[], field: string): AnthropicRequestBlock[] {
  return parts.map((part, position): AnthropicRequestBlock =>
    part.type === 'text' ? { type: 'text', text: part.text } : convertImage(part, `${field}.content[${position}].image_url.url`),
  );
}

/** Assistant text as blocks; empty strings are left out (Anthropic refuses empty text blocks). */
function textBlocks(content: string | TextPart[] | null | undefined): AnthropicTextBlock[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content.filter((part) => part.text !== '').map((part) => ({ type: 'text', text: part.text }));
}

function asBlocks(content: string | AnthropicRequestBlock[]): AnthropicRequestBlock[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

function toolResultsFirst(blocks: AnthropicRequestBlock[]): AnthropicRequestBlock[] {
  return [...blocks.filter((block) => block.type === 'tool_result'), ...blocks.filter((block) => block.type !== 'tool_result')];
}
