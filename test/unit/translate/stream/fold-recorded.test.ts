import { describe, expect, it } from 'vitest';
import { chatToMessages } from '../../../../src/translate/messages/chat-to-messages.js';
import { accumulateChat } from '../../../../src/translate/stream/accumulate-chat.js';
import { accumulateMessageEvents } from '../../../../src/translate/stream/accumulate-message-events.js';
import { ChatToMessageEvents } from '../../../../src/translate/stream/chat-to-message-events.js';
import { listRecorded } from '../../../helpers/recorded.js';
import { recordedHubChunks } from '../../../helpers/recorded-hub-chunks.js';

/**
 * For every recorded OpenAI-compatible stream that completes: the message events folded (as the
 * SDK's finalMessage() does) equal the non-stream translation of the folded hub response.
 */

const files = [...listRecorded('openai-chat', '.sse'), ...listRecorded('openai-chat', '.chunks.jsonl'), ...listRecorded('openai-compatible', '.sse'), ...listRecorded('openai-compatible', '.chunks.jsonl')];

describe('message events fold ≡ non-stream translation (recorded streams)', () => {
  it('has recorded streams', () => {
    expect(files.length).toBeGreaterThan(5);
  });
  for (const file of files) {
    it(file, async () => {
      const chunks = await recordedHubChunks(file);
      if (chunks === undefined) return;
      const mapper = new ChatToMessageEvents({ model: 'claude-test', inputTokens: 42 });
      const events = [...chunks.flatMap((chunk) => mapper.push(chunk)), ...mapper.end()];
      const folded = accumulateChat(chunks);
      if (folded.choices[0]?.finish_reason == null) {
        expect(events.at(-1)?.type).toBe('error');
        return;
      }
      const streamed = accumulateMessageEvents(events);
      const whole = chatToMessages(folded, { model: 'claude-test' });
      expect(streamed.content).toEqual(whole.content);
      expect(streamed.stop_reason).toEqual(whole.stop_reason);
      expect(streamed.id).toEqual(whole.id);
      if (chunks.some((chunk) => chunk.usage != null)) expect(streamed.usage).toEqual(whole.usage);
      // No empty text block ever, and at most one block open at a time.
      expect(streamed.content.every((block) => block.type !== 'text' || block.text !== '')).toBe(true);
    });
  }
});
