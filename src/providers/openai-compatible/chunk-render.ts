import type { ChunkText } from '../../translate/chat/chunk-text.js';
import type { ChatChunk } from '../../translate/chat/types.js';

/**
 * The text JSON.stringify would make of a chunk ChunkNormalizer built from a scanned event
 * (scan-chunk.ts), minus the model name: written member by member in the order the normaliser
 * adds them (chunk: id, object, created, model, choices, system_fingerprint; choice: index,
 * delta, finish_reason; delta: role, content, reasoning_content, refusal), each value with
 * JSON.stringify so every string is escaped exactly as it would be. Undefined for any other
 * shape (several choices, usage, logprobs, tool calls): that chunk is serialised whole.
 * The differential tests compare this with JSON.stringify on every recorded stream.
 */
export function renderScannedChunk(chunk: ChatChunk, head: string): ChunkText | undefined {
  if (chunk.choices.length !== 1 || chunk.usage !== undefined) return undefined;
  const choice = chunk.choices[0]!;
  const delta = choice.delta;
  if (choice.logprobs !== undefined || delta.tool_calls !== undefined) return undefined;
  let members = delta.role === undefined ? '' : `"role":${JSON.stringify(delta.role)}`;
  if (delta.content !== undefined) members += `${members === '' ? '' : ','}"content":${JSON.stringify(delta.content)}`;
  if (delta.reasoning_content !== undefined) members += `${members === '' ? '' : ','}"reasoning_content":${JSON.stringify(delta.reasoning_content)}`;
  if (delta.refusal !== undefined) members += `${members === '' ? '' : ','}"refusal":${JSON.stringify(delta.refusal)}`;
  const finish = choice.finish_reason === null ? 'null' : JSON.stringify(choice.finish_reason);
  const fingerprint = chunk.system_fingerprint === undefined ? '' : `,"system_fingerprint":${JSON.stringify(chunk.system_fingerprint)}`;
  return { head, tail: `,"choices":[{"index":${choice.index},"delta":{${members}},"finish_reason":${finish}}]${fingerprint}}` };
}

/** `{"id":…,"object":"chat.completion.chunk","created":…,"model":` for a chunk's id and created. */
export function chunkHead(chunk: ChatChunk): string {
  return `{"id":${JSON.stringify(chunk.id)},"object":"chat.completion.chunk","created":${JSON.stringify(chunk.created)},"model":`;
}
