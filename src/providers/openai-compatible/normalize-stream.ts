import { classifyUpstreamStreamError } from '../../errors/classify-upstream.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { ChatChunk, ChatUsage, ChunkChoice, ChunkToolCallDelta } from '../../translate/chat/types.js';
import {
  nonEmpty,
  normalizeArguments,
  normalizeContent,
  normalizeFinishReason,
  normalizeLogprobs,
  normalizeUsage,
  unexpectedBody,
  type NormalizeFallbacks,
} from './normalize.js';
import { TextedChunk } from '../../translate/chat/chunk-text.js';
import { chunkHead, renderScannedChunk } from './chunk-render.js';
import { parseUpstreamChunk, type UpstreamChatChunk, type UpstreamToolCall } from './wire.js';

/**
 * Upstream `chat.completion.chunk` payloads → hub ChatChunks, one upstream event at a time
 * (ARCHITECTURE principle 3: push() per event, end() turns a truncated stream into an error).
 *
 * What it evens out (each seen in fixtures/recorded):
 * - the role is announced once per choice (Perplexity, OpenRouter, Z.ai repeat it on every chunk);
 * - `reasoning` (Ollama, OpenRouter, Groq) becomes `reasoning_content`;
 * - tool calls without `index` (Mistral) get one by order of first id; ids `""` on continuation
 *   deltas (DashScope) and repeated ids/names are dropped, so id/type/name appear only on the
 *   first delta of each call;
 * - usage: a final usage-only chunk (`choices: []`), usage on the finish chunk (DeepSeek,
 *   Mistral), in `x_groq.usage` (Groq), after the finish chunk (OpenRouter), or as a running
 *   total on every chunk (Perplexity). Running totals are held back and the last one is sent
 *   once, so the hub stream carries usage only on its final chunk(s);
 * - an in-stream `{error}` object or an `event: error` becomes INFERENCE_3105.
 * Chunks that carry nothing after this (empty deltas, `reasoning: null` padding) are dropped.
 */
export class ChunkNormalizer {
  private readonly fallbacks: NormalizeFallbacks;
  private id: string | undefined;
  private created: number | undefined;
  private model: string | undefined;
  private readonly choices = new Map<number, ChoiceState>();
  private finishSeen = false;
  private usageSent = false;
  private heldUsage: ChatUsage | undefined;
  /** The rendered head of the last scanned chunk, and the id and created it was made for. */
  private head: string | undefined;
  private headId: string | undefined;
  private headCreated: number | undefined;

  constructor(fallbacks: NormalizeFallbacks) {
    this.fallbacks = fallbacks;
  }

  /** One parsed SSE data payload (and its `event:` name, if any) → zero or more hub chunks. */
  push(payload: unknown, event?: string): ChatChunk[] {
    if (event === 'error' || (isRecord(payload) && payload['error'] !== undefined && payload['error'] !== null)) {
      throw classifyUpstreamStreamError(payload, this.fallbacks.providerId);
    }
    const parsed = parseUpstreamChunk(payload);
    if (!parsed.success) throw unexpectedBody(this.fallbacks.providerId, 'stream chunk', parsed.error);
    return this.accept(parsed.data);
  }

  /**
   * One event read by scanPlainChunk (scan-chunk.ts: a plain one-choice text chunk, no usage or
   * error) → the same hub chunks push() makes of it, each with its JSON text ready for the chat
   * surface (translate/chat/chunk-text.ts), so neither the event is parsed into objects nor the
   * chunk serialised again (issue 18 item 3).
   */
  pushScanned(upstream: UpstreamChatChunk): TextedChunk[] {
    const chunks = this.accept(upstream);
    for (const chunk of chunks) {
      // id and created are fixed by the stream's first chunk that has them: one head per stream, nearly always.
      if (this.head === undefined || this.headId !== chunk.id || this.headCreated !== chunk.created) {
        this.head = chunkHead(chunk);
        this.headId = chunk.id;
        this.headCreated = chunk.created;
      }
      const text = renderScannedChunk(chunk, this.head);
      if (text !== undefined) TextedChunk.setText(chunk, text);
    }
    return chunks;
  }

  /** A checked upstream chunk → zero or more hub chunks (the evening out described on the class). */
  private accept(upstream: UpstreamChatChunk): TextedChunk[] {
    this.id ??= nonEmpty(upstream.id);
    this.created ??= upstream.created ?? undefined;
    this.model ??= nonEmpty(upstream.model);

    const choices: ChunkChoice[] = [];
    let finishesHere = false;
    // An indexed loop and flags instead of entries(), Object.keys and spreads: this runs once per
    // streamed event, and each of those allocated per event (issue 18 item 3).
    const upstreamChoices = upstream.choices ?? [];
    for (let position = 0; position < upstreamChoices.length; position += 1) {
      const choice = upstreamChoices[position]!;
      const index = choice.index ?? position;
      const state = this.choiceState(index);
      const delta: ChunkChoice['delta'] = {};
      let carries = false;
      const upstreamDelta = choice.delta ?? {};
      if (!state.announced) {
        delta.role = 'assistant';
        state.announced = true;
        carries = true;
      }
      const content = normalizeContent(upstreamDelta.content);
      if (content !== null && content !== '') {
        delta.content = content;
        carries = true;
      }
      const reasoning = nonEmpty(upstreamDelta.reasoning_content) ?? nonEmpty(upstreamDelta.reasoning);
      if (reasoning !== undefined) {
        delta.reasoning_content = reasoning;
        carries = true;
      }
      const refusal = nonEmpty(upstreamDelta.refusal);
      if (refusal !== undefined) {
        delta.refusal = refusal;
        carries = true;
      }
      const upstreamCalls = upstreamDelta.tool_calls;
      if (upstreamCalls != null && upstreamCalls.length > 0) {
        const toolCalls = upstreamCalls.flatMap((call) => state.toolDelta(call, this.toolIdPrefix(index)) ?? []);
        if (toolCalls.length > 0) {
          delta.tool_calls = toolCalls;
          carries = true;
        }
      }
      const finishReason = normalizeFinishReason(choice.finish_reason);
      if (finishReason !== null) finishesHere = true;
      const logprobs = normalizeLogprobs(choice.logprobs);
      const hasLogprobs = logprobs !== null && ((logprobs.content?.length ?? 0) > 0 || (logprobs.refusal?.length ?? 0) > 0);
      if (!carries && finishReason === null && !hasLogprobs) continue;
      const normalized: ChunkChoice = { index, delta, finish_reason: finishReason };
      if (hasLogprobs) normalized.logprobs = logprobs;
      choices.push(normalized);
    }

    const usage = normalizeUsage(upstream.usage ?? upstream.x_groq?.usage);
    let usageHere: ChatUsage | undefined;
    if (usage !== undefined) {
      // Usage is final on a usage-only chunk, on a finish chunk, or once a finish was seen;
      // before that it is a running total (Perplexity) and waits for a later one.
      if (upstreamChoices.length === 0 || finishesHere || this.finishSeen) {
        usageHere = usage;
        this.usageSent = true;
        this.heldUsage = undefined;
      } else {
        this.heldUsage = usage;
      }
    }
    if (finishesHere) this.finishSeen = true;

    if (choices.length === 0 && usageHere === undefined) return [];
    const chunk = this.chunk(choices);
    if (usageHere !== undefined) chunk.usage = usageHere;
    const fingerprint = nonEmpty(upstream.system_fingerprint);
    if (fingerprint !== undefined) chunk.system_fingerprint = fingerprint;
    return [chunk];
  }

  /**
   * The upstream body ended (`sawDone`: with `data: [DONE]`). Flushes held usage; a stream
   * without a finish_reason, or without both [DONE] and usage, was cut off: INFERENCE_3105.
   */
  end(sawDone: boolean): ChatChunk[] {
    const flushed: TextedChunk[] = [];
    if (this.heldUsage !== undefined) {
      const chunk = this.chunk([]);
      chunk.usage = this.heldUsage;
      flushed.push(chunk);
      this.heldUsage = undefined;
      this.usageSent = true;
    }
    if (!this.finishSeen || (!sawDone && !this.usageSent)) {
      throw new GatewayError(
        'INFERENCE_3105',
        `Upstream stream ended early: provider "${this.fallbacks.providerId}" stopped before the response was complete.`,
        { provider: this.fallbacks.providerId, finish_reason_seen: this.finishSeen, done_seen: sawDone, usage_seen: this.usageSent },
      );
    }
    return flushed;
  }

  private chunk(choices: ChunkChoice[]): TextedChunk {
    return new TextedChunk(this.id ?? this.fallbacks.id, this.created ?? this.fallbacks.created, this.model ?? this.fallbacks.model, choices);
  }

  private choiceState(index: number): ChoiceState {
    let state = this.choices.get(index);
    if (state === undefined) {
      state = new ChoiceState();
      this.choices.set(index, state);
    }
    return state;
  }

  private toolIdPrefix(choiceIndex: number): string {
    return `call_${this.id ?? this.fallbacks.id}_${choiceIndex}_`;
  }
}

/** Per choice: whether the role went out, and which tool-call indexes have started. */
class ChoiceState {
  announced = false;
  private readonly indexById = new Map<string, number>();
  private readonly started = new Set<number>();
  private nextIndex = 0;
  private lastIndex: number | undefined;

  /** One upstream tool-call delta → the hub delta, or undefined when it carries nothing new. */
  toolDelta(call: UpstreamToolCall, idPrefix: string): ChunkToolCallDelta | undefined {
    const id = nonEmpty(call.id);
    const index = this.resolveIndex(call.index ?? undefined, id);
    const argumentsText = normalizeArguments(call.function?.arguments);
    if (!this.started.has(index)) {
      this.started.add(index);
      const name = call.function?.name;
      return {
        index,
        id: id ?? `${idPrefix}${index}`,
        type: 'function',
        function: { ...(name == null ? {} : { name }), arguments: argumentsText },
      };
    }
    if (argumentsText === '') return undefined;
    return { index, function: { arguments: argumentsText } };
  }

  private resolveIndex(upstreamIndex: number | undefined, id: string | undefined): number {
    let index: number;
    if (upstreamIndex !== undefined) index = upstreamIndex;
    else if (id !== undefined) index = this.indexById.get(id) ?? this.nextIndex;
    else index = this.lastIndex ?? 0;
    if (id !== undefined && !this.indexById.has(id)) this.indexById.set(id, index);
    this.nextIndex = Math.max(this.nextIndex, index + 1);
    this.lastIndex = index;
    return index;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
