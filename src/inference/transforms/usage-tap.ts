import { countTokens } from '../../tokens/tokenizer.js';
import { makeUsage, type ChatChunk, type ChatUsage } from '../../translate/chat/types.js';
import type { UsageTap } from './transform.js';

/**
 * The usage of a hub stream: what the upstream reported (the last chunk carrying usage), or —
 * for servers that ignore include_usage — a count of its own: the prompt as the caller counts it
 * and every piece of output the model produced (text, refusal, reasoning, tool arguments), seen
 * before railguards rewrite anything, since the model produced it either way.
 */
export class HubUsageTap implements UsageTap<ChatChunk> {
  private reported: ChatUsage | undefined;
  private readonly output: string[] = [];

  observe(chunk: ChatChunk): void {
    if (chunk.usage != null) this.reported = chunk.usage;
    for (const choice of chunk.choices) {
      const delta = choice.delta;
      if (typeof delta.content === 'string' && delta.content !== '') this.output.push(delta.content);
      if (typeof delta.refusal === 'string' && delta.refusal !== '') this.output.push(delta.refusal);
      if (typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '') this.output.push(delta.reasoning_content);
      for (const toolCall of delta.tool_calls ?? []) if (toolCall.function?.arguments) this.output.push(toolCall.function.arguments);
    }
  }

  /** Whether the upstream reported usage itself. */
  get reportedUsage(): ChatUsage | undefined {
    return this.reported;
  }

  /** The usage to bill: reported, else counted (the prompt count is only computed when needed). */
  usage(promptTokens: () => number): ChatUsage {
    return this.reported ?? makeUsage(promptTokens(), countTokens(this.output.join('')));
  }
}
