import { makeUsage, type ChatChunk, type ChatResponse } from '../translate/chat/types.js';
import type { DirectAnswer } from './apply.js';

/**
 * A blueprint's own answer (input railguard or override) as a regular chat completion: every
 * choice carries the text, usage is all zeros (no model ran, no tokens billed).
 */
export function directCompletion(answer: DirectAnswer, meta: { id: string; created: number; model: string; n: number }): ChatResponse {
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: Array.from({ length: meta.n }, (_, index) => ({
      index,
      message: { role: 'assistant' as const, content: answer.text, tool_calls: null },
      finish_reason: answer.finishReason,
      logprobs: null,
    })),
    usage: makeUsage(0, 0),
    system_fingerprint: null,
  };
}

/** The same answer as stream chunks: the text per choice, then the finish reason per choice. */
export function directChunks(answer: DirectAnswer, meta: { id: string; created: number; model: string; n: number }): ChatChunk[] {
  const base = { id: meta.id, object: 'chat.completion.chunk' as const, created: meta.created, model: meta.model, system_fingerprint: null };
  const chunks: ChatChunk[] = [];
  for (let index = 0; index < meta.n; index += 1) {
    chunks.push({ ...base, choices: [{ index, delta: { role: 'assistant', content: answer.text }, finish_reason: null, logprobs: null }] });
    chunks.push({ ...base, choices: [{ index, delta: {}, finish_reason: answer.finishReason, logprobs: null }] });
  }
  return chunks;
}
