import { describe, expect, it } from 'vitest';
import { decodeSse, SseOverflowError, type SseEnd, type SseEvent } from '../../../src/providers/sse-decode.js';
import { seededRandom, splitRandomly } from '../../helpers/fake-upstream.js';
import { listRecorded, readRecorded } from '../../helpers/recorded.js';

async function* bytesOf(pieces: Array<string | Uint8Array>, failWith?: Error): AsyncGenerator<Uint8Array> {
  for (const piece of pieces) yield typeof piece === 'string' ? new TextEncoder().encode(piece) : piece;
  if (failWith !== undefined) throw failWith;
}

async function decodeAll(body: AsyncIterable<Uint8Array>): Promise<{ events: SseEvent[]; end: SseEnd }> {
  const events: SseEvent[] = [];
  const generator = decodeSse(body);
  for (;;) {
    const step = await generator.next();
    if (step.done === true) return { events, end: step.value };
    events.push(step.value);
  }
}

const decodeText = (...pieces: string[]) => decodeAll(bytesOf(pieces));

describe('decodeSse', () => {
  it('yields data events and stops at [DONE]', async () => {
    const { events, end } = await decodeText('data: {"a":1}\n\ndata: {"a":2}\n\ndata: [DONE]\n\ndata: {"after":true}\n\n');
    expect(events).toEqual([{ data: '{"a":1}' }, { data: '{"a":2}' }]);
    expect(end).toEqual({ sawDone: true });
  });

  it('reports a body that ends without [DONE]', async () => {
    const { events, end } = await decodeText('data: {"a":1}\n\n');
    expect(events).toEqual([{ data: '{"a":1}' }]);
    expect(end.sawDone).toBe(false);
  });

  it('reads the body to its end after [DONE] (socket reuse) but yields nothing more', async () => {
    let consumedToEnd = false;
    async function* body() {
      yield new TextEncoder().encode('data: 1\n\ndata: [DONE]\n\n');
      yield new TextEncoder().encode('data: 2\n\n');
      consumedToEnd = true;
    }
    const { events, end } = await decodeAll(body());
    expect(events).toEqual([{ data: '1' }]);
    expect(end.sawDone).toBe(true);
    expect(consumedToEnd).toBe(true);
  });

  it('ignores a transport error after [DONE] but raises one before it', async () => {
    const reset = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    await expect(decodeAll(bytesOf(['data: 1\n\ndata: [DONE]\n\n'], reset))).resolves.toMatchObject({ end: { sawDone: true } });
    await expect(decodeAll(bytesOf(['data: 1\n\n'], reset))).rejects.toBe(reset);
  });

  it('handles CRLF and CR line ends, comments, event names, multi-line data and no space after the colon', async () => {
    const { events } = await decodeText(
      ': keep-alive comment\r\n\r\n',
      'event: error\r\ndata: {"x":1}\r\n\r\n',
      'data:{"y":2}\r\rdata: line one\ndata: line two\n\n',
    );
    expect(events).toEqual([{ event: 'error', data: '{"x":1}' }, { data: '{"y":2}' }, { data: 'line one\nline two' }]);
  });

  it('keeps whitespace padding inside the data (it is part of the JSON text)', async () => {
    const { events } = await decodeText('data: {"type":"ping"     }   \n\n');
    expect(JSON.parse(events[0]!.data)).toEqual({ type: 'ping' });
  });

  it('accepts a last event without its blank line, and [DONE] without a newline', async () => {
    expect((await decodeText('data: {"a":1}\n')).events).toEqual([{ data: '{"a":1}' }]);
    const { events, end } = await decodeText('data: {"a":1}\n\ndata: [DONE]');
    expect(events).toEqual([{ data: '{"a":1}' }]);
    expect(end.sawDone).toBe(true);
  });

  it('reassembles multi-byte characters split between reads', async () => {
    const bytes = new TextEncoder().encode('data: {"t":"héllo ☃ 😀"}\n\n');
    const pieces = Array.from(bytes, (byte) => Uint8Array.of(byte));
    const { events } = await decodeAll(bytesOf(pieces));
    expect(JSON.parse(events[0]!.data)).toEqual({ t: 'héllo ☃ 😀' });
  });
});

describe('decodeSse progress and limits (issue 14)', () => {
  it('reports each complete comment line, not partial ones', async () => {
    let comments = 0;
    const seen: number[] = [];
    async function* body(): AsyncGenerator<Uint8Array> {
      for (const piece of [': OPENROUTER', ' PROCESSING\n', '\n: ping\n\n', ': unfin']) {
        yield new TextEncoder().encode(piece);
        await Promise.resolve();
        seen.push(comments);
      }
      yield new TextEncoder().encode('ished\n\ndata: {}\n\n');
    }
    const events = [];
    for await (const event of decodeSse(body(), { onComment: () => (comments += 1) })) events.push(event);
    expect(seen).toEqual([0, 1, 2, 2]);
    expect(comments).toBe(3);
    expect(events).toEqual([{ data: '{}' }]);
  });

  it('refuses a line that grows past the buffer limit instead of buffering it', async () => {
    const endless = bytesOf(['data: ', ...Array.from({ length: 20 }, () => 'x'.repeat(100))]);
    const generator = decodeSse(endless, { maxBufferChars: 1000 });
    await expect(generator.next()).rejects.toBeInstanceOf(SseOverflowError);
  });

  it('events under the limit pass', async () => {
    const generator = decodeSse(bytesOf([`data: ${'y'.repeat(900)}\n\n`]), { maxBufferChars: 1000 });
    expect((await generator.next()).value).toEqual({ data: 'y'.repeat(900) });
  });
});

describe('decodeSse over recorded streams', () => {
  const files = ['openai-chat', 'openai-compatible', 'anthropic-messages', 'openai-responses'].flatMap((folder) => listRecorded(folder, '.sse'));

  it('finds the recorded .sse files', () => {
    expect(files.length).toBeGreaterThanOrEqual(20);
  });

  for (const file of files) {
    it(`${file}: random byte splits give the same events as the whole body`, async () => {
      const text = readRecorded(file);
      const whole = await decodeText(text);
      const dataLines = text.split(/\r?\n/).filter((line) => line.startsWith('data:'));
      const doneLines = dataLines.filter((line) => line.slice(5).trim() === '[DONE]').length;
      expect(whole.events.length).toBe(dataLines.length - doneLines);
      expect(whole.end.sawDone).toBe(doneLines > 0);
      for (const event of whole.events) {
        expect(() => JSON.parse(event.data)).not.toThrow();
        // Anthropic names each event after its payload type.
        if (file.startsWith('anthropic-messages/')) expect(event.event).toBe((JSON.parse(event.data) as { type: string }).type);
      }
      for (const seed of [1, 2, 3, 42, 1234]) {
        const pieces = splitRandomly(new TextEncoder().encode(text), seededRandom(seed));
        expect(await decodeAll(bytesOf(pieces))).toEqual(whole);
      }
    });
  }

  it('skips OpenRouter processing comments and keeps Groq\'s event: error', async () => {
    const openrouter = await decodeText(readRecorded('openai-compatible/openrouter-stream-error-in-chunk.sse'));
    expect(openrouter.events.every((event) => event.data.startsWith('{'))).toBe(true);
    const groq = await decodeText(readRecorded('openai-compatible/groq-stream-midstream-error.sse'));
    expect(groq.events.at(-1)?.event).toBe('error');
    expect(groq.end.sawDone).toBe(false);
  });
});
