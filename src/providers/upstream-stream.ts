import { GatewayError } from '../errors/gateway-error.js';
import { classifyUpstreamStatus } from '../errors/classify-upstream.js';
import type { UpstreamHttpClient } from './http-client.js';
import { decodeSseBatches, type SseEnd, type SseEvent } from './sse-decode.js';
import { flattenBatches } from '../util/flatten-batches.js';
import type { AbortWatch } from '../util/caller-abort.js';

/** How one provider kind reads its own error shapes inside a stream. */
export interface StreamDialect {
  providerId: string;
  /** Maps a thrown transport error (or abort) to what the caller should see. */
  failure(error: unknown): unknown;
  /** What an `event: error` whose data is not JSON stands for, in this kind's error shape. */
  errorPayload(text: string): unknown;
  /** The GatewayError for a JSON error envelope sent where a stream was asked for, if it is one. */
  errorEnvelope(parsed: unknown): GatewayError | undefined;
}

export interface UpstreamEvent {
  event: string | undefined;
  payload: unknown;
  /** The `data:` text as the upstream sent it, for pass-through that forwards it untouched. */
  data: string;
}

/**
 * POSTs a streaming request and yields its SSE events as the upstream framed them (text, not
 * yet parsed), one batch per upstream read (issue 18 item 3: one async step per read, not per
 * event); returns whether the `[DONE]` sentinel arrived. Shared by every provider kind that
 * streams SSE: non-2xx statuses are classified, a JSON answer to a streaming request is
 * refused, transport failures go through `dialect.failure`, and stopping early releases the
 * upstream socket. A consumer that can read an event's text without JSON.parse (the chat
 * stream's scanner, scan-chunk.ts) takes these; the rest take upstreamEventBatches.
 */
export async function* upstreamSseBatches(
  httpClient: UpstreamHttpClient,
  url: string,
  body: unknown,
  options: { headers: Record<string, string>; timeoutMs: number; signal: AbortWatch },
  dialect: StreamDialect,
): AsyncGenerator<SseEvent[], { sawDone: boolean }> {
  let response;
  try {
    response = await httpClient.postStream(url, body, options);
  } catch (error) {
    throw dialect.failure(error);
  }
  if (response.text !== undefined) throw classifyUpstreamStatus(response.status, response.text, response.headers, dialect.providerId);
  if ((response.headers['content-type'] ?? '').includes('application/json')) {
    // The whole JSON body must arrive within one idle timeout.
    response.idle.arm();
    let answer: GatewayError;
    try {
      answer = await nonStreamAnswer(response.body, dialect);
    } catch (error) {
      throw dialect.failure(error);
    } finally {
      response.idle.disarm();
    }
    throw answer;
  }
  // The idle timeout counts complete events (and keep-alive comment lines), not bytes: it runs
  // only while we wait for the next one, so a trickle of bytes cannot hold the stream open.
  const { idle } = response;
  let doneSeen = false;
  let draining = false;
  const batches = decodeSseBatches(response.body, { onComment: () => idle.progress(), onDone: () => (doneSeen = true) });
  try {
    for (;;) {
      let step;
      idle.arm();
      try {
        step = await batches.next();
      } catch (error) {
        throw dialect.failure(error);
      } finally {
        idle.disarm();
      }
      if (step.done === true) return step.value;
      yield step.value;
      if (doneSeen) {
        // `[DONE]` has come: the stream ends now, not when the body's end arrives in a later read
        // (so the client's last events and the end of its body leave in one write; issue 18
        // item 3). The rest of the body is still read, in the background and under the idle
        // timer, so the keep-alive socket goes back to the pool (or is closed if it hangs).
        draining = true;
        drainAfterDone(batches, idle);
        return { sawDone: true };
      }
    }
  } finally {
    // Stopping early (consumer gone, error) releases the upstream socket.
    if (!draining) await batches.return({ sawDone: false }).catch(() => undefined);
  }
}

/** Reads what follows `[DONE]` to the body's end; an error or the idle timeout just ends it (the stream is already complete). */
function drainAfterDone(batches: AsyncGenerator<SseEvent[], SseEnd>, idle: { arm(): void; disarm(): void }): void {
  idle.arm();
  void (async () => {
    try {
      while ((await batches.next()).done !== true);
    } catch {
      // Nothing to report: every event up to [DONE] was delivered.
    } finally {
      idle.disarm();
    }
  })();
}

/**
 * upstreamSseBatches with each event's data parsed as JSON. An event that is not valid JSON
 * ends the stream after the events before it (they are yielded first).
 */
export async function* upstreamEventBatches(
  httpClient: UpstreamHttpClient,
  url: string,
  body: unknown,
  options: { headers: Record<string, string>; timeoutMs: number; signal: AbortWatch },
  dialect: StreamDialect,
): AsyncGenerator<UpstreamEvent[], { sawDone: boolean }> {
  const batches = upstreamSseBatches(httpClient, url, body, options, dialect);
  try {
    for (;;) {
      const step = await batches.next();
      if (step.done === true) return step.value;
      const parsed: UpstreamEvent[] = [];
      let broken: unknown;
      for (const event of step.value) {
        try {
          parsed.push({ event: event.event, payload: parseEventData(event.data, event.event, dialect), data: event.data });
        } catch (error) {
          broken = error;
          break;
        }
      }
      if (parsed.length > 0) yield parsed;
      if (broken !== undefined) throw broken;
    }
  } finally {
    await batches.return({ sawDone: false });
  }
}

/** The same events one at a time (upstreamEventBatches flattened). */
export async function* upstreamEvents(
  httpClient: UpstreamHttpClient,
  url: string,
  body: unknown,
  options: { headers: Record<string, string>; timeoutMs: number; signal: AbortWatch },
  dialect: StreamDialect,
): AsyncGenerator<UpstreamEvent, { sawDone: boolean }> {
  return yield* flattenBatches(upstreamEventBatches(httpClient, url, body, options, dialect), { sawDone: false });
}

/** JSON.parse of one `data:` payload (whitespace padding is fine); an `event: error` is an error whatever its data. */
export function parseEventData(data: string, event: string | undefined, dialect: StreamDialect): unknown {
  try {
    return JSON.parse(data) as unknown;
  } catch (error) {
    if (event === 'error') return dialect.errorPayload(data.slice(0, 1_000));
    throw new GatewayError('INFERENCE_3105', `Provider "${dialect.providerId}" sent a stream event that is not valid JSON.`, { provider: dialect.providerId }, {
      cause: { error, data: data.slice(0, 16_384) },
    });
  }
}

/**
 * A 2xx JSON body where a stream was asked for: an error envelope (some servers report errors
 * this way) or a server that ignores `stream: true`. Either way the stream cannot be served.
 */
async function nonStreamAnswer(body: AsyncIterable<Uint8Array>, dialect: StreamDialect): Promise<GatewayError> {
  const parts: Buffer[] = [];
  for await (const part of body) parts.push(Buffer.from(part));
  const text = Buffer.concat(parts).toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return (
    dialect.errorEnvelope(parsed) ??
    new GatewayError('INFERENCE_3105', `Provider "${dialect.providerId}" answered a streaming request with a non-stream body.`, { provider: dialect.providerId }, {
      cause: { body: text.slice(0, 16_384) },
    })
  );
}
