import type { DirectAnswer } from '../blueprints/apply.js';
import { makeUsage, type ChatChunk, type ChatResponse } from '../translate/chat/types.js';

/** Identity of a direct answer as chat: the request's id, the time, the model the client named, and n. */
export interface DirectMeta {
  id: string;
  created: number;
  model: string;
  n: number;
}

/**
 * A blueprint's own answer (input railguard or override) as a regular chat completion: every
 * choice carries the text, usage is all zeros (no model ran, no tokens billed).
 */
export function directCompletion(answer: DirectAnswer, meta: DirectMeta): ChatResponse {
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

/**
 * The same answer as the chunks of a hub stream — the text per choice, then the finish reason per
 * choice, the last one reporting zero usage — so it enters the stream driver like any provider's.
 */
export function directChunks(answer: DirectAnswer, meta: DirectMeta): ChatChunk[] {
  const base = { id: meta.id, object: 'chat.completion.chunk' as const, created: meta.created, model: meta.model, system_fingerprint: null };
  const chunks: ChatChunk[] = [];
  for (let index = 0; index < meta.n; index += 1) {
    chunks.push({ ...base, choices: [{ index, delta: { role: 'assistant', content: answer.text }, finish_reason: null, logprobs: null }] });
    chunks.push({ ...base, choices: [{ index, delta: {}, finish_reason: answer.finishReason, logprobs: null }] });
  }
  const last = chunks.at(-1);
  if (last !== undefined) last.usage = makeUsage(0, 0);
  return chunks;
}
