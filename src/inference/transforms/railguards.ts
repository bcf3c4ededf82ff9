import type { OutputGuard, StreamGuard } from '../../blueprints/output-guard.js';
import { forgetChunkText } from '../../translate/chat/chunk-text.js';
import type { ChatChunk, ChatResponse, ChunkChoice } from '../../translate/chat/types.js';
import type { StreamTransform } from './transform.js';

/**
 * Output railguards on a finished completion: a choice whose text matches gets the rule's
 * message instead (no tool calls, no logprobs) and finish_reason `blocked`. The model ran, so
 * its usage stays and is billed.
 */
export function guardCompletion(response: ChatResponse, guard: OutputGuard): void {
  for (const choice of response.choices) {
    const blocked = guard.check(choice.message.content ?? '');
    if (blocked === undefined) continue;
    choice.message = { role: 'assistant', content: blocked.message, tool_calls: null };
    choice.finish_reason = 'blocked';
    choice.logprobs = null;
  }
}

/**
 * Output railguards on a hub stream, chunk by chunk. Text is passed on only once no match can
 * cover it (StreamGuard holds back the tail); a match ends that choice with one chunk carrying
 * the rule's message and finish_reason `blocked`, and later deltas of that choice are dropped.
 * Logprobs are dropped, since they would spell out held-back tokens. Once `choices` choices are
 * blocked (1 on surfaces that show one), nothing more can pass and the upstream is stopped.
 */
export class RailguardTransform implements StreamTransform<ChatChunk> {
  private readonly guard: StreamGuard;
  private readonly open = new Set<number>();
  private readonly done = new Set<number>();
  private blockedCount = 0;
  private template: Pick<ChatChunk, 'id' | 'created' | 'model' | 'system_fingerprint'> | undefined;

  constructor(
    outputGuard: OutputGuard,
    private readonly choices = 1,
  ) {
    this.guard = outputGuard.stream();
  }

  /** How many choices ended blocked so far. */
  get blocked(): number {
    return this.blockedCount;
  }

  get exhausted(): boolean {
    return this.blockedCount >= this.choices;
  }

  /** Rewrites the chunk in place; false when nothing of it is left to send (a usage-only chunk is kept). */
  apply(chunk: ChatChunk): boolean {
    // The chunk is rewritten below: its ready JSON text (if any) would no longer say what it holds.
    forgetChunkText(chunk);
    this.template = { id: chunk.id, created: chunk.created, model: chunk.model, system_fingerprint: chunk.system_fingerprint ?? null };
    if (chunk.choices.length === 0) return true;
    const kept: ChunkChoice[] = [];
    for (const choice of chunk.choices) {
      const index = choice.index;
      if (this.done.has(index)) continue;
      this.open.add(index);
      choice.logprobs = null;
      const text = choice.delta.content;
      if (typeof text === 'string' && text !== '') {
        const step = this.guard.push(index, text);
        if (step.blocked !== undefined) {
          kept.push(this.blockedChoice(index, step.blocked.message));
          continue;
        }
        choice.delta.content = step.release;
      }
      if (choice.finish_reason !== null) {
        const step = this.guard.end(index);
        this.done.add(index);
        if (step.blocked !== undefined) {
          kept.push(this.blockedChoice(index, step.blocked.message));
          continue;
        }
        if (step.release !== '') choice.delta.content = (choice.delta.content ?? '') + step.release;
      }
      if (isEmpty(choice)) continue;
      kept.push(choice);
    }
    chunk.choices = kept;
    return kept.length > 0;
  }

  /** Choices the upstream left without a finish_reason: their held-back text, checked, as chunks. */
  flush(): ChatChunk[] {
    const template = this.template;
    if (template === undefined) return [];
    const chunks: ChatChunk[] = [];
    for (const index of this.open) {
      if (this.done.has(index)) continue;
      this.done.add(index);
      const step = this.guard.end(index);
      const choice = step.blocked !== undefined ? this.blockedChoice(index, step.blocked.message) : step.release === '' ? undefined : { index, delta: { content: step.release }, finish_reason: null, logprobs: null };
      if (choice !== undefined) chunks.push({ ...template, object: 'chat.completion.chunk', choices: [choice] });
    }
    return chunks;
  }

  private blockedChoice(index: number, message: string): ChunkChoice {
    this.done.add(index);
    this.blockedCount += 1;
    return { index, delta: { content: message }, finish_reason: 'blocked', logprobs: null };
  }
}

function isEmpty(choice: ChunkChoice): boolean {
  const delta = choice.delta;
  return (
    choice.finish_reason === null &&
    (delta.content === undefined || delta.content === null || delta.content === '') &&
    delta.role === undefined &&
    delta.tool_calls === undefined &&
    delta.reasoning_content === undefined &&
    (delta.refusal === undefined || delta.refusal === null)
  );
}
