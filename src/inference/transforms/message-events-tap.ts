import type { NativeMessageEvent } from '../../providers/types.js';
import { countTokens } from '../../tokens/tokenizer.js';
import { convertUsage, mergeUsage } from '../../translate/anthropic-wire/convert-usage.js';
import type { AnthropicUsage } from '../../translate/anthropic-wire/types.js';
import { makeUsage, type ChatUsage } from '../../translate/chat/types.js';
import type { UsageTap } from './transform.js';

/**
 * The usage tap of a native Messages stream (Anthropic wire): usage folded from message_start
 * and message_delta (whose counts are cumulative), else a count of the streamed text and tool
 * input; and whether message_stop arrived (a stream without it ended early).
 */
export class MessageEventsTap implements UsageTap<NativeMessageEvent> {
  private reported: AnthropicUsage | undefined;
  private readonly output: string[] = [];
  stopped = false;

  observe({ type, payload }: NativeMessageEvent): void {
    if (type === 'message_start') {
      const message = payload['message'] as Record<string, unknown> | undefined;
      if (message !== undefined) this.reported = mergeUsage(this.reported, message['usage'] as AnthropicUsage | undefined);
    } else if (type === 'message_delta') {
      this.reported = mergeUsage(this.reported, payload['usage'] as AnthropicUsage | undefined);
    } else if (type === 'content_block_delta') {
      const delta = payload['delta'] as { text?: unknown; partial_json?: unknown } | undefined;
      if (typeof delta?.text === 'string') this.output.push(delta.text);
      if (typeof delta?.partial_json === 'string') this.output.push(delta.partial_json);
    } else if (type === 'message_stop') {
      this.stopped = true;
    }
  }

  usage(inputTokens: () => number): ChatUsage {
    return this.reported === undefined ? makeUsage(inputTokens(), countTokens(this.output.join(''))) : convertUsage(this.reported);
  }
}
