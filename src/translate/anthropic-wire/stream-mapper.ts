import { classifyUpstreamErrorEvent } from '../../errors/classify-upstream.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { ChatChunk, ChunkChoice, FinishReason } from '../chat/types.js';
import { convertUsage, mergeUsage } from './convert-usage.js';
import { mapStopReason } from './map-stop-reason.js';
import type { AnthropicContentBlockStart, AnthropicStreamEvent, AnthropicUsage } from './types.js';

export interface AnthropicStreamMapperOptions {
  /** Names the provider in errors. */
  providerId: string;
  /** Unix seconds for every chunk's `created` (Anthropic sends no timestamp). */
  created: number;
  /** Used until (or unless) message_start names the message and the model. */
  fallbackId: string;
  fallbackModel: string;
  /** The forced structured-output tool of this request, if any (AnthropicRequestPlan). */
  structuredOutputTool?: string | undefined;
}

/**
 * - awaiting_start: nothing seen yet;
 * - streaming: message_start seen, content blocks flowing;
 * - finished: message_delta gave the stop reason and final usage;
 * - stopped: message_stop seen; the only phase in which end() is a normal end.
 */
type Phase = 'awaiting_start' | 'streaming' | 'finished' | 'stopped';

/** What one content block (by Anthropic's block index) turns into on the hub. */
type BlockState =
  | { kind: 'text' }
  | { kind: 'thinking' }
  /** toolIndex is the hub index: 0-based over tool calls only, not over content blocks. */
  | { kind: 'tool'; toolIndex: number; argumentsSent: boolean }
  | { kind: 'structured_output'; contentSent: boolean }
  | { kind: 'ignored' };

/**
 * Anthropic stream events → hub ChatChunks, one event at a time (ARCHITECTURE principle 3).
 *
 * message_start → a first chunk with the role; text_delta → content; thinking_delta →
 * reasoning_content; tool_use blocks → tool call deltas (id, type and name first with
 * arguments "", then the input_json_delta pieces); message_delta → a finish chunk, then a
 * usage-only chunk (`choices: []`) like OpenAI's include_usage; message_stop ends it. ping,
 * signature_delta, redacted thinking and block or event types igw never asks for are skipped.
 * An `error` event throws the classified GatewayError; end() before message_stop throws
 * INFERENCE_3105 (a truncated upstream must not look like a complete answer).
 */
export class AnthropicStreamMapper {
  private phase: Phase = 'awaiting_start';
  private readonly options: AnthropicStreamMapperOptions;
  private id: string;
  private model: string;
  private usage: AnthropicUsage | undefined;
  private readonly blocks = new Map<number, BlockState>();
  private nextToolIndex = 0;
  private answeredByStructuredOutput = false;

  constructor(options: AnthropicStreamMapperOptions) {
    this.options = options;
    this.id = options.fallbackId;
    this.model = options.fallbackModel;
  }

  push(event: AnthropicStreamEvent): ChatChunk[] {
    if (event.type === 'error') throw classifyUpstreamErrorEvent(event.payload, this.options.providerId);
    if (event.type === 'ping' || event.type === 'unknown' || this.phase === 'stopped') return [];
    if (event.type === 'message_start') {
      if (this.phase !== 'awaiting_start') return [];
      this.id = nonEmpty(event.message.id) ?? this.id;
      this.model = nonEmpty(event.message.model) ?? this.model;
      this.usage = mergeUsage(undefined, event.message.usage);
      return this.start();
    }
    // A server that skips message_start still gets its role chunk first.
    const opening = this.phase === 'awaiting_start' ? this.start() : [];
    return [...opening, ...this.handle(event)];
  }

  /** The upstream body ended. Only a stream that reached message_stop is complete. */
  end(): ChatChunk[] {
    if (this.phase !== 'stopped') {
      throw new GatewayError(
        'INFERENCE_3105',
        `Upstream stream ended early: provider "${this.options.providerId}" stopped before the response was complete.`,
        { provider: this.options.providerId, phase: this.phase },
      );
    }
    return [];
  }

  private handle(event: Exclude<AnthropicStreamEvent, { type: 'error' | 'ping' | 'unknown' | 'message_start' }>): ChatChunk[] {
    switch (event.type) {
      case 'content_block_start':
        return this.startBlock(event.index, event.content_block);
      case 'content_block_delta': {
        const block = this.blocks.get(event.index);
        const delta = event.delta;
        switch (delta.type) {
          case 'text_delta':
            if (block?.kind === 'structured_output') return this.structuredContent(block, delta.text);
            return delta.text === '' ? [] : [this.choiceChunk({ content: delta.text })];
          case 'thinking_delta':
            return delta.thinking === '' ? [] : [this.choiceChunk({ reasoning_content: delta.thinking })];
          case 'input_json_delta':
            if (block?.kind === 'structured_output') return this.structuredContent(block, delta.partial_json);
            if (block?.kind !== 'tool') {
              throw new GatewayError('INFERENCE_3105', `Provider "${this.options.providerId}" streamed tool input for a content block it never started.`, {
                provider: this.options.providerId,
                block_index: event.index,
              });
            }
            // The first piece is often "" (and is the only one for a tool without arguments).
            if (delta.partial_json === '') return [];
            block.argumentsSent = true;
            return [this.choiceChunk({ tool_calls: [{ index: block.toolIndex, function: { arguments: delta.partial_json } }] })];
          case 'signature_delta':
          case 'unknown':
            return [];
          default: {
            const unexpected: never = delta;
            return unexpected;
          }
        }
      }
      case 'content_block_stop': {
        const block = this.blocks.get(event.index);
        this.blocks.delete(event.index);
        // A tool called without arguments streams only "" (stream-tool-no-args): the hub
        // arguments must still be a JSON object.
        if (block?.kind === 'tool' && !block.argumentsSent) {
          return [this.choiceChunk({ tool_calls: [{ index: block.toolIndex, function: { arguments: '{}' } }] })];
        }
        if (block?.kind === 'structured_output' && !block.contentSent) return [this.choiceChunk({ content: '{}' })];
        return [];
      }
      case 'message_delta': {
        if (this.phase === 'finished') return [];
        this.phase = 'finished';
        this.usage = mergeUsage(this.usage, event.usage);
        const finish = mapStopReason(event.delta.stop_reason, this.answeredByStructuredOutput && this.nextToolIndex === 0);
        return this.finish(finish);
      }
      case 'message_stop': {
        // Without message_delta the stop reason is unknown; the message is complete all the same.
        const closing = this.phase === 'finished' ? [] : this.finish('stop');
        this.phase = 'stopped';
        return closing;
      }
      default: {
        const unexpected: never = event;
        return unexpected;
      }
    }
  }

  private start(): ChatChunk[] {
    this.phase = 'streaming';
    return [this.choiceChunk({ role: 'assistant' })];
  }

  private startBlock(index: number, block: AnthropicContentBlockStart): ChatChunk[] {
    switch (block.type) {
      case 'text':
        this.blocks.set(index, { kind: 'text' });
        return block.text == null || block.text === '' ? [] : [this.choiceChunk({ content: block.text })];
      case 'thinking':
        this.blocks.set(index, { kind: 'thinking' });
        return block.thinking == null || block.thinking === '' ? [] : [this.choiceChunk({ reasoning_content: block.thinking })];
      case 'tool_use': {
        if (this.options.structuredOutputTool !== undefined && block.name === this.options.structuredOutputTool) {
          this.answeredByStructuredOutput = true;
          this.blocks.set(index, { kind: 'structured_output', contentSent: false });
          return [];
        }
        // content_block_start carries `input: {}`; the real input follows as input_json_delta.
        const toolIndex = this.nextToolIndex;
        this.nextToolIndex += 1;
        this.blocks.set(index, { kind: 'tool', toolIndex, argumentsSent: false });
        return [this.choiceChunk({ tool_calls: [{ index: toolIndex, id: block.id, type: 'function', function: { name: block.name, arguments: '' } }] })];
      }
      case 'redacted_thinking':
      case 'unknown':
        this.blocks.set(index, { kind: 'ignored' });
        return [];
      default: {
        const unexpected: never = block;
        return unexpected;
      }
    }
  }

  private structuredContent(block: Extract<BlockState, { kind: 'structured_output' }>, text: string): ChatChunk[] {
    if (text === '') return [];
    block.contentSent = true;
    return [this.choiceChunk({ content: text })];
  }

  private finish(reason: FinishReason): ChatChunk[] {
    const finishChunk = this.chunk([{ index: 0, delta: {}, finish_reason: reason }]);
    const usageChunk = this.chunk([]);
    usageChunk.usage = convertUsage(this.usage);
    return [finishChunk, usageChunk];
  }

  private choiceChunk(delta: ChunkChoice['delta']): ChatChunk {
    return this.chunk([{ index: 0, delta, finish_reason: null }]);
  }

  private chunk(choices: ChunkChoice[]): ChatChunk {
    return { id: this.id, object: 'chat.completion.chunk', created: this.options.created, model: this.model, choices };
  }
}

function nonEmpty(value: string | null | undefined): string | undefined {
  return value === null || value === undefined || value === '' ? undefined : value;
}
