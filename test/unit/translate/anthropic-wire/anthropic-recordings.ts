import { parseAnthropicResponse, parseAnthropicStreamEvent } from '../../../../src/providers/anthropic/wire.js';
import { decodeSse } from '../../../../src/providers/sse-decode.js';
import type { AnthropicResponse, AnthropicStreamEvent } from '../../../../src/translate/anthropic-wire/types.js';
import type { ChatChunk, ChatUsage, FinishReason } from '../../../../src/translate/chat/types.js';
import { seededRandom, splitRandomly } from '../../../helpers/fake-upstream.js';
import { payloadsFromChunksFile, readRecorded, readRecordedJson } from '../../../helpers/recorded.js';

/** Shared by the anthropic-wire suites: recorded Anthropic bodies as parsed wire types, and test-side reducers. */

export function recordedResponse(file: string): AnthropicResponse {
  const parsed = parseAnthropicResponse(readRecordedJson(file));
  if (!parsed.success) throw new Error(`${file} does not parse: ${String(parsed.error)}`);
  return parsed.data;
}

export interface RecordedStream {
  /** Raw payloads as JSON values, in order. */
  payloads: unknown[];
  /** `event:` names as framed (undefined for .chunks.jsonl, which has none). */
  eventNames: Array<string | undefined>;
  events: AnthropicStreamEvent[];
}

/**
 * A recorded stream as parsed events. `.sse` goes through the real SSE decoder, split into random
 * 1–16 byte pieces (seeded) so re-assembly across reads is exercised; `.chunks.jsonl` has one
 * payload per line (the recording format drops `event:` lines; for Anthropic the name is the type).
 */
export async function recordedStream(file: string, seed = 1): Promise<RecordedStream> {
  let framed: Array<{ data: string; event?: string }>;
  if (file.endsWith('.chunks.jsonl')) {
    framed = payloadsFromChunksFile(file).map((data) => ({ data }));
  } else {
    const pieces = splitRandomly(new TextEncoder().encode(readRecorded(file)), seededRandom(seed));
    async function* body() {
      for (const piece of pieces) yield piece;
    }
    framed = [];
    for await (const event of decodeSse(body())) framed.push(event);
  }
  const payloads = framed.map((frame) => JSON.parse(frame.data) as unknown);
  const events = payloads.map((payload, position) => {
    const parsed = parseAnthropicStreamEvent(payload);
    if (!parsed.success) throw new Error(`${file} event ${position} does not parse: ${String(parsed.error)}`);
    return parsed.data;
  });
  return { payloads, eventNames: framed.map((frame) => frame.event), events };
}

/**
 * The test's own Anthropic-side reducer (like the SDK's MessageStream accumulator): folds the
 * stream events into the message a non-stream call would have returned, so the non-stream
 * translation of it can be compared with the fold of the mapped hub chunks.
 */
export function accumulateAnthropic(events: readonly AnthropicStreamEvent[]): AnthropicResponse {
  const message: AnthropicResponse = { content: [] };
  const json = new Map<number, string>();
  for (const event of events) {
    switch (event.type) {
      case 'message_start':
        message.id = event.message.id;
        message.model = event.message.model;
        message.usage = { ...event.message.usage };
        break;
      case 'content_block_start': {
        const block = event.content_block;
        if (block.type === 'text') message.content[event.index] = { type: 'text', text: block.text ?? '' };
        else if (block.type === 'thinking') message.content[event.index] = { type: 'thinking', thinking: block.thinking ?? '' };
        else if (block.type === 'tool_use') {
          message.content[event.index] = { type: 'tool_use', id: block.id, name: block.name, input: {} };
          json.set(event.index, '');
        } else message.content[event.index] = block.type === 'unknown' ? block : { type: 'redacted_thinking' };
        break;
      }
      case 'content_block_delta': {
        const block = message.content[event.index];
        if (event.delta.type === 'text_delta' && block?.type === 'text') block.text += event.delta.text;
        if (event.delta.type === 'thinking_delta' && block?.type === 'thinking') block.thinking += event.delta.thinking;
        if (event.delta.type === 'input_json_delta') json.set(event.index, (json.get(event.index) ?? '') + event.delta.partial_json);
        break;
      }
      case 'content_block_stop': {
        const block = message.content[event.index];
        const text = json.get(event.index);
        if (block?.type === 'tool_use' && text !== undefined) block.input = text === '' ? {} : JSON.parse(text);
        break;
      }
      case 'message_delta': {
        message.stop_reason = event.delta.stop_reason;
        message.stop_sequence = event.delta.stop_sequence;
        const usage = { ...message.usage };
        for (const key of ['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens'] as const) {
          const value = event.usage?.[key];
          if (value != null) usage[key] = value;
        }
        if (event.usage?.iterations != null) usage.iterations = event.usage.iterations;
        message.usage = usage;
        break;
      }
      default:
        break;
    }
  }
  return message;
}

export interface FoldedStream {
  id: string | undefined;
  model: string | undefined;
  content: string;
  reasoning: string;
  toolCalls: Array<{ id: string | undefined; name: string | undefined; arguments: string }>;
  finishReason: FinishReason | null;
  usage: ChatUsage | undefined;
  /** Chunk positions, for shape checks. */
  roleChunks: number;
  finishChunks: number;
  usageChunkPositions: number[];
}

/** The test's hub-side reducer (openai-node style): hub chunks → the pieces of a ChatResponse. */
export function foldChunks(chunks: readonly ChatChunk[]): FoldedStream {
  const folded: FoldedStream = {
    id: undefined,
    model: undefined,
    content: '',
    reasoning: '',
    toolCalls: [],
    finishReason: null,
    usage: undefined,
    roleChunks: 0,
    finishChunks: 0,
    usageChunkPositions: [],
  };
  chunks.forEach((chunk, position) => {
    folded.id ??= chunk.id;
    folded.model ??= chunk.model;
    if (chunk.usage != null) {
      folded.usage = chunk.usage;
      folded.usageChunkPositions.push(position);
    }
    for (const choice of chunk.choices) {
      if (choice.delta.role !== undefined) folded.roleChunks += 1;
      folded.content += choice.delta.content ?? '';
      folded.reasoning += choice.delta.reasoning_content ?? '';
      for (const call of choice.delta.tool_calls ?? []) {
        const entry = (folded.toolCalls[call.index] ??= { id: undefined, name: undefined, arguments: '' });
        if (call.id !== undefined) entry.id = call.id;
        if (call.function?.name !== undefined) entry.name = call.function.name;
        entry.arguments += call.function?.arguments ?? '';
      }
      if (choice.finish_reason !== null) {
        folded.finishReason = choice.finish_reason;
        folded.finishChunks += 1;
      }
    }
  });
  return folded;
}
