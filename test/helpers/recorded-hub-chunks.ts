import { ChunkNormalizer } from '../../src/providers/openai-compatible/normalize-stream.js';
import { decodeSse } from '../../src/providers/sse-decode.js';
import type { ChatChunk } from '../../src/translate/chat/types.js';
import { payloadsFromChunksFile, readRecorded } from './recorded.js';

/**
 * A recorded OpenAI-compatible stream (`.sse` or `.chunks.jsonl`) as the hub chunks the provider
 * adapter would yield; undefined for a recorded upstream failure (the error suites cover those).
 */
export async function recordedHubChunks(file: string): Promise<ChatChunk[] | undefined> {
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
    return undefined;
  }
  return chunks;
}
