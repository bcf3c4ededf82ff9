import { makeUsage, type ChatChunk, type ChatResponse, type FinishReason, type ToolCall } from '../chat/types.js';

/**
 * Folds hub ChatChunks into the ChatResponse a non-stream call would have returned (choice 0
 * plus any others by index). Used for stream ≡ non-stream equivalence tests and wherever a
 * stream must be answered whole.
 */
export function accumulateChat(chunks: Iterable<ChatChunk>): ChatResponse {
  let id = '';
  let created = 0;
  let model = '';
  let fingerprint: string | null = null;
  let usage = makeUsage(0, 0);
  const choices = new Map<number, { content: string; refusal: string; reasoning: string; tools: Map<number, ToolCall>; finish: FinishReason | null }>();
  for (const chunk of chunks) {
    id ||= chunk.id;
    created ||= chunk.created;
    model ||= chunk.model;
    fingerprint ??= chunk.system_fingerprint ?? null;
    if (chunk.usage != null) usage = chunk.usage;
    for (const choice of chunk.choices) {
      let state = choices.get(choice.index);
      if (state === undefined) {
        state = { content: '', refusal: '', reasoning: '', tools: new Map(), finish: null };
        choices.set(choice.index, state);
      }
      state.content += choice.delta.content ?? '';
      state.refusal += choice.delta.refusal ?? '';
      state.reasoning += choice.delta.reasoning_content ?? '';
      for (const delta of choice.delta.tool_calls ?? []) {
        let call = state.tools.get(delta.index);
        if (call === undefined) {
          call = { id: '', type: 'function', function: { name: '', arguments: '' } };
          state.tools.set(delta.index, call);
        }
        if (delta.id !== undefined && call.id === '') call.id = delta.id;
        if (delta.function?.name !== undefined && call.function.name === '') call.function.name = delta.function.name;
        call.function.arguments += delta.function?.arguments ?? '';
      }
      if (choice.finish_reason != null) state.finish = choice.finish_reason;
    }
  }
  return {
    id,
    object: 'chat.completion',
    created,
    model,
    system_fingerprint: fingerprint,
    usage,
    choices: [...choices.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, state]) => ({
        index,
        message: {
          role: 'assistant' as const,
          content: state.content === '' ? null : state.content,
          tool_calls: state.tools.size === 0 ? null : [...state.tools.entries()].sort(([a], [b]) => a - b).map(([, call]) => call),
          ...(state.reasoning === '' ? {} : { reasoning_content: state.reasoning }),
          ...(state.refusal === '' ? {} : { refusal: state.refusal }),
        },
        finish_reason: state.finish,
        logprobs: null,
      })),
  };
}
