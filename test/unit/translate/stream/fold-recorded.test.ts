import { describe, expect, it } from 'vitest';
import { ChunkNormalizer } from '../../../../src/providers/openai-compatible/normalize-stream.js';
import { decodeSse } from '../../../../src/providers/sse-decode.js';
import type { ChatChunk } from '../../../../src/translate/chat/types.js';
import { chatToMessages } from '../../../../src/translate/messages/chat-to-messages.js';
import { accumulateChat } from '../../../../src/translate/stream/accumulate-chat.js';
import { accumulateMessageEvents } from '../../../../src/translate/stream/accumulate-message-events.js';
import { ChatToMessageEvents } from '../../../../src/translate/stream/chat-to-message-events.js';
import { listRecorded, noticeRecordedMissing, payloadsFromChunksFile, readRecorded, recordedAvailable } from '../../../helpers/recorded.js';

/**
 * For every recorded OpenAI-compatible stream that completes: the message events folded (as the
 * SDK's finalMessage() does) equal the non-stream translation of the folded hub response.
 */
async function hubChunks(file: string): Promise<ChatChunk[] | undefined> {
  const normalizer = new ChunkNormalizer({ providerId: 'rec', id: 'chatcmpl-rec', created: 0, model: 'rec' });
  const chunks: ChatChunk[] = [];
  try {
    if (file.endsWith('.chunks.jsonl')) {
      for (const line of payloadsFromChunksFile(file)) chunks.push(...normalizer.push(JSON.parse(line) as unknown));
      chunks.push(...normalizer.end(true));
    } else {
      async function* body() {
        yield new TextEncoder().encode(readRecorded(file));
      }
      const generator = decodeSse(body());
      for (;;) {
        const step = await generator.next();
        if (step.done === true) {
          chunks.push(...normalizer.end(step.value.sawDone));
          break;
        }
        chunks.push(...normalizer.push(JSON.parse(step.value.data) as unknown, step.value.event));
      }
    }
  } catch {
    return undefined; // a recorded upstream failure: covered by the error tests
  }
  return chunks;
}

const files = [...listRecorded('openai-chat', '.sse'), ...listRecorded('openai-chat', '.chunks.jsonl'), ...listRecorded('openai-compatible', '.sse'), ...listRecorded('openai-compatible', '.chunks.jsonl')];

describe.skipIf(!recordedAvailable)('message events fold ≡ non-stream translation (recorded streams)', () => {
  noticeRecordedMissing('fold-recorded');
  it('has recorded streams', () => {
    expect(files.length).toBeGreaterThan(5);
  });
  for (const file of files) {
    it(file, async () => {
      const chunks = await hubChunks(file);
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
