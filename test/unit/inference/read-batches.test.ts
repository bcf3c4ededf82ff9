import { describe, expect, it } from 'vitest';
import { decodeSseBatches } from '../../../src/providers/sse-decode.js';

async function* reads(parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield new TextEncoder().encode(part);
}

/** The driver's batches start at the decoder: one batch per upstream read, only reads that complete an event. */
describe('decodeSseBatches', () => {
  it.each([
    { name: 'three events in one read → one batch', parts: ['data: 1\n\ndata: 2\n\ndata: 3\n\n'], batches: [['1', '2', '3']], sawDone: false },
    { name: 'an event split across reads → one batch when it completes', parts: ['data: 1\n\ndata: ', '2\n\n'], batches: [['1'], ['2']], sawDone: false },
    { name: 'a read that completes nothing yields nothing', parts: ['data: 1', '1\n', '\n'], batches: [['11']], sawDone: false },
    { name: '[DONE] ends the batch it arrives in; what follows is dropped', parts: ['data: 1\n\ndata: [DONE]\n\ndata: 9\n\n', 'data: 10\n\n'], batches: [['1']], sawDone: true },
  ])('$name', async ({ parts, batches, sawDone }) => {
    const seen: string[][] = [];
    const stream = decodeSseBatches(reads(parts));
    for (;;) {
      const step = await stream.next();
      if (step.done === true) {
        expect(step.value.sawDone).toBe(sawDone);
        break;
      }
      seen.push(step.value.map((event) => event.data));
    }
    expect(seen).toEqual(batches);
  });
});

/** Pass-through bytes: JSON text igw did not build goes out as sent, framed so that multi-line text survives. */
describe('SseWriter.sendText', () => {
  it.each([
    { name: 'one-line JSON as is', text: '{"type":"ping"}', framed: 'event: ping\ndata: {"type":"ping"}\n\n' },
    { name: 'multi-line JSON, one data line each', text: '{\n  "type": "ping"\r\n}', framed: 'event: ping\ndata: {\ndata:   "type": "ping"\ndata: }\n\n' },
  ])('$name', async ({ text, framed }) => {
    const { SseWriter } = await import('../../../src/http/sse.js');
    const written: string[] = [];
    const response = { headersSent: false, writableNeedDrain: false, destroyed: false, writableEnded: false, write: (chunk: string) => void written.push(chunk), end: () => undefined } as unknown as ConstructorParameters<typeof SseWriter>[0];
    const writer = new SseWriter(response);
    writer.sendText(text, 'ping');
    writer.close();
    expect(written.join('')).toBe(framed);
  });
});
