import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { flattenBatches } from '../util/flatten-batches.js';

/** One server-sent event as the upstream framed it. */
export interface SseEvent {
  event?: string;
  data: string;
}

/** How the byte stream ended: with the OpenAI-style `data: [DONE]` sentinel or without it. */
export interface SseEnd {
  sawDone: boolean;
}

export interface SseDecodeOptions {
  /**
   * Called for each complete comment line (`: OPENROUTER PROCESSING`, `: ping`): servers send them
   * as keep-alives, so the stream's idle timer counts them as progress.
   */
  onComment?: () => void;
  /** Most characters one unfinished line or event may buffer before the stream is refused. */
  maxBufferChars?: number;
  /**
   * Called when a read completed the `data: [DONE]` sentinel, before that read's events are
   * yielded: the consumer may end its stream then instead of waiting for the body's end.
   */
  onDone?: () => void;
}

/** 64 Mi characters: far above any real event (a base64 image chunk is a few MB), far below exhausting memory. */
const DEFAULT_MAX_BUFFER_CHARS = 64 * 1024 * 1024;

/** An upstream that sends an endless line or event: refused instead of buffered until memory runs out. */
export class SseOverflowError extends Error {
  constructor(readonly maxBufferChars: number) {
    super(`a server-sent event grew past ${maxBufferChars} characters without ending`);
    this.name = 'SseOverflowError';
  }
}

/**
 * Bytes → SSE events, one batch per upstream read (every event that read completed), so a
 * consumer pays one async step per read instead of one per event (issue 18 item 3).
 * eventsource-parser does the framing (comments such as `: OPENROUTER PROCESSING`, CRLF or CR
 * line ends, events split across reads); a streaming TextDecoder keeps multi-byte characters that
 * straddle two reads intact. Stops at `data: [DONE]` (nothing after it is yielded) and reports
 * through the generator's return value whether it saw it, so a truncated upstream can be told
 * from a finished one. A read that completes no event yields nothing.
 */
export async function* decodeSseBatches(body: AsyncIterable<Uint8Array>, options: SseDecodeOptions = {}): AsyncGenerator<SseEvent[], SseEnd, undefined> {
  const decoder = new TextDecoder('utf-8');
  let pending: SseEvent[] = [];
  const maxBufferChars = options.maxBufferChars ?? DEFAULT_MAX_BUFFER_CHARS;
  let overflow = false;
  const parser = createParser({
    onEvent: (message: EventSourceMessage) => {
      pending.push(message.event === undefined ? { data: message.data } : { event: message.event, data: message.data });
    },
    ...(options.onComment === undefined ? {} : { onComment: options.onComment }),
    maxBufferSize: maxBufferChars,
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') overflow = true;
    },
  });
  const feed = (text: string) => {
    parser.feed(text);
    if (overflow) throw new SseOverflowError(maxBufferChars);
  };

  // What the parser produced, up to the [DONE] sentinel (done: it was among it).
  const take = (): { events: SseEvent[]; done: boolean } => {
    const events = pending;
    pending = [];
    const doneAt = events.findIndex((event) => event.data.trim() === '[DONE]');
    if (doneAt === -1) return { events, done: false };
    events.length = doneAt;
    return { events, done: true };
  };

  let sawDone = false;
  try {
    for await (const bytes of body) {
      // After [DONE] the rest of the body is read and dropped (like openai-node): a body read to
      // its end lets the pool reuse the keep-alive socket instead of closing it.
      if (sawDone) continue;
      feed(decoder.decode(bytes, { stream: true }));
      const { events, done } = take();
      sawDone = done;
      if (done) options.onDone?.();
      if (events.length > 0) yield events;
    }
  } catch (error) {
    if (!sawDone) throw error;
    return { sawDone };
  }
  if (sawDone) return { sawDone };
  // Some servers end the last event without its blank line (or even without a newline): a
  // complete `data:` line still counts. A line cut mid-way then surfaces as malformed data.
  feed(`${decoder.decode()}\n\n`);
  const { events, done } = take();
  if (events.length > 0) yield events;
  return { sawDone: done };
}

/** The same events one at a time (decodeSseBatches flattened). */
export async function* decodeSse(body: AsyncIterable<Uint8Array>, options: SseDecodeOptions = {}): AsyncGenerator<SseEvent, SseEnd, undefined> {
  return yield* flattenBatches(decodeSseBatches(body, options), { sawDone: false });
}
