import { openAsBlob } from 'node:fs';
import { FormData, Pool } from 'undici';
import { CallerAbort, onAbort, type AbortWatch } from '../util/caller-abort.js';

/**
 * The one place igw talks HTTP to providers (ARCHITECTURE principle 7: undici is imported only
 * here). One keep-alive pool per upstream origin, created on first use; every call carries its
 * own deadline and the caller's AbortSignal.
 */

export interface UpstreamRequestOptions {
  headers?: Record<string, string>;
  /** Connect + response headers (+ the whole body for postJson; + each gap between chunks for postStream). */
  timeoutMs: number;
  /** The caller's abort: aborting it cancels the request and rejects with its `reason`. */
  signal?: AbortWatch;
  /** postJson only: false leaves `json` undefined, for a caller that reads `text` its own way. */
  parseJson?: boolean;
}

export interface UpstreamJsonResponse {
  status: number;
  headers: Record<string, string>;
  /** The parsed body, or undefined when the body is empty or not JSON (see `text`). */
  json: unknown;
  /** The raw body text, kept so a non-2xx or non-JSON answer can be classified. */
  text: string;
}

export interface UpstreamStreamResponse {
  status: number;
  headers: Record<string, string>;
  /** The body as it arrives. Empty when the status is not 2xx (the body is in `text` then). */
  body: AsyncIterable<Uint8Array>;
  /** Only for non-2xx answers: the whole error body, read within the deadline. */
  text: string | undefined;
  /** The stream's idle timeout, run by whoever knows what a unit of progress is (see IdleTimer). */
  idle: IdleTimer;
}

/**
 * The idle timeout of a stream (issue 14). It counts complete SSE events, not bytes, so the reader
 * that frames events drives it: `arm()` while it waits for the next event, `progress()` when a
 * complete unit (an event, a keep-alive comment line) arrives, `disarm()` once it has one. An upstream
 * that trickles bytes without ever completing an event is cut after `timeout_ms`; time the
 * consumer spends between reads is not counted, so a slow client is not mistaken for a slow upstream.
 */
export interface IdleTimer {
  arm(): void;
  /** Restarts the wait if it is running. */
  progress(): void;
  disarm(): void;
}

/** One part of a multipart upload: a text field, or a file streamed from disk. */
export type MultipartPart = { name: string; value: string } | { name: string; filePath: string; filename: string; contentType: string };

/** Thrown (as the abort reason) when one of our own deadlines passes. */
export class UpstreamTimeoutError extends Error {
  /** Read by errors/classify-upstream.ts, which must not import this module (it imports undici). */
  readonly code = 'IGW_UPSTREAM_TIMEOUT';
  readonly timeoutMs: number;
  readonly phase: 'response' | 'idle';

  constructor(timeoutMs: number, phase: 'response' | 'idle') {
    super(
      phase === 'response'
        ? `no complete response within ${timeoutMs} ms`
        : `no complete event from the stream for ${timeoutMs} ms`,
    );
    this.name = 'UpstreamTimeoutError';
    this.timeoutMs = timeoutMs;
    this.phase = phase;
  }
}

export interface UpstreamHttpClientOptions {
  /** Sockets per origin; further requests queue (and their deadline keeps running). */
  connectionsPerOrigin?: number;
  /** How long an idle keep-alive socket is kept open. */
  keepAliveTimeoutMs?: number;
}

export class UpstreamHttpClient {
  private readonly pools = new Map<string, Pool>();
  private readonly connectionsPerOrigin: number;
  private readonly keepAliveTimeoutMs: number;
  private closed = false;

  constructor(options: UpstreamHttpClientOptions = {}) {
    this.connectionsPerOrigin = options.connectionsPerOrigin ?? 128;
    this.keepAliveTimeoutMs = options.keepAliveTimeoutMs ?? 30_000;
  }

  /** POSTs JSON and reads the whole answer; the deadline covers connect, headers and body. */
  async postJson(url: string, body: unknown, options: UpstreamRequestOptions): Promise<UpstreamJsonResponse> {
    const deadline = new RequestDeadline(options);
    try {
      const response = await this.dispatch(url, body, 'application/json', options, deadline.signal, options.timeoutMs + 1_000);
      const text = await response.body.text();
      return { status: response.statusCode, headers: flattenHeaders(response.headers), json: options.parseJson === false ? undefined : parseJsonOrUndefined(text), text };
    } catch (error) {
      throw deadline.explain(error);
    } finally {
      deadline.dispose();
    }
  }

  /**
   * POSTs JSON and returns the body as a byte stream. The deadline covers connect and headers;
   * afterwards the same timeout is the stream's idle timeout, driven by the caller through
   * `idle` (it knows when an event is complete; a byte is no progress).
   */
  async postStream(url: string, body: unknown, options: UpstreamRequestOptions): Promise<UpstreamStreamResponse> {
    const deadline = new RequestDeadline(options);
    let handedOver = false;
    try {
      // undici's body timer is off here: it would also run while a slow client holds the
      // stream back (backpressure), and it counts bytes; the caller's idle timer counts events.
      const response = await this.dispatch(url, body, 'text/event-stream', options, deadline.signal, 0);
      const headers = flattenHeaders(response.headers);
      if (response.statusCode < 200 || response.statusCode >= 300) {
        const text = await response.body.text();
        return { status: response.statusCode, headers, body: emptyBody(), text, idle: deadline.idleTimer(options.timeoutMs) };
      }
      deadline.stopResponseTimer();
      handedOver = true;
      const idle = deadline.idleTimer(options.timeoutMs);
      return { status: response.statusCode, headers, body: readStream(response.body, deadline, idle), text: undefined, idle };
    } catch (error) {
      throw deadline.explain(error);
    } finally {
      if (!handedOver) deadline.dispose();
    }
  }

  /**
   * POSTs multipart/form-data and reads the whole (JSON) answer. File parts are streamed from
   * disk (fs.openAsBlob), never loaded whole; undici writes the boundary and content-type.
   */
  async postMultipart(url: string, parts: readonly MultipartPart[], options: UpstreamRequestOptions): Promise<UpstreamJsonResponse> {
    if (this.closed) throw new Error('UpstreamHttpClient is closed');
    const deadline = new RequestDeadline(options);
    try {
      const form = new FormData();
      for (const part of parts) {
        if ('value' in part) form.append(part.name, part.value);
        else form.append(part.name, await openAsBlob(part.filePath, { type: part.contentType }), part.filename);
      }
      const target = this.parsedUrl(url);
      const headers = lowerCaseKeys(options.headers ?? {});
      delete headers['content-type'];
      const response = await this.poolFor(target.origin).request({
        method: 'POST',
        path: `${target.pathname}${target.search}`,
        headers: { accept: 'application/json', ...headers },
        body: form,
        signal: deadline.signal,
        headersTimeout: options.timeoutMs + 1_000,
        bodyTimeout: options.timeoutMs + 1_000,
      });
      const text = await response.body.text();
      return { status: response.statusCode, headers: flattenHeaders(response.headers), json: parseJsonOrUndefined(text), text };
    } catch (error) {
      throw deadline.explain(error);
    } finally {
      deadline.dispose();
    }
  }

  /** Closes every pool; in-flight requests finish first. */
  async close(): Promise<void> {
    this.closed = true;
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => pool.close()));
  }

  private async dispatch(url: string, body: unknown, accept: string, options: UpstreamRequestOptions, signal: CallerAbort, bodyTimeout: number) {
    if (this.closed) throw new Error('UpstreamHttpClient is closed');
    const target = this.parsedUrl(url);
    const pool = this.poolFor(target.origin);
    return pool.request({
      method: 'POST',
      path: `${target.pathname}${target.search}`,
      headers: { accept, ...lowerCaseKeys(options.headers ?? {}), 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal,
      // undici's own timers as a second line of defence; ours (RequestDeadline) decide first.
      headersTimeout: options.timeoutMs + 1_000,
      bodyTimeout,
    });
  }

  /** Upstream URLs are a provider base URL plus a fixed path: parse each once. */
  private readonly parsedUrls = new Map<string, URL>();

  private parsedUrl(url: string): URL {
    let parsed = this.parsedUrls.get(url);
    if (parsed === undefined) {
      parsed = new URL(url);
      if (this.parsedUrls.size < 1000) this.parsedUrls.set(url, parsed);
    }
    return parsed;
  }

  private poolFor(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (pool === undefined) {
      pool = new Pool(origin, {
        connections: this.connectionsPerOrigin,
        keepAliveTimeout: this.keepAliveTimeoutMs,
      });
      this.pools.set(origin, pool);
    }
    return pool;
  }
}

/**
 * Joins the caller's signal with our timers into the one signal undici sees, so either cancels
 * the socket. The abort reason tells the two apart afterwards.
 */
class RequestDeadline {
  /**
   * The one abort source undici sees for a call: an emitter with `aborted`/`reason`, which undici
   * accepts as `signal` (api-request.js, core/util.js addAbortListener). An AbortController per
   * upstream call was the costliest allocation on the request path (issue 18 item 3 profile).
   */
  private readonly controller = new CallerAbort();
  private readonly callerSignal: AbortWatch | undefined;
  private stopWatching: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(options: UpstreamRequestOptions) {
    this.callerSignal = options.signal;
    if (this.callerSignal?.aborted) {
      this.controller.abort(this.callerSignal.reason);
    } else {
      if (this.callerSignal !== undefined) this.stopWatching = onAbort(this.callerSignal, () => this.controller.abort(this.callerSignal?.reason));
      this.timer = setTimeout(() => this.controller.abort(new UpstreamTimeoutError(options.timeoutMs, 'response')), options.timeoutMs);
    }
  }

  get signal(): CallerAbort {
    return this.controller;
  }

  stopResponseTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The stream's idle timer: when it fires, the request is aborted with an 'idle' UpstreamTimeoutError. */
  idleTimer(timeoutMs: number): IdleTimer {
    let timer: NodeJS.Timeout | undefined;
    const fire = () => this.controller.abort(new UpstreamTimeoutError(timeoutMs, 'idle'));
    return {
      arm() {
        clearTimeout(timer);
        timer = setTimeout(fire, timeoutMs);
      },
      progress() {
        // refresh() restarts the same timer without allocating one per event.
        if (timer !== undefined) timer.refresh();
      },
      disarm() {
        clearTimeout(timer);
        timer = undefined;
      },
    };
  }

  /** Prefers the abort reason over whatever undici wrapped it in. */
  explain(error: unknown): unknown {
    return this.controller.aborted ? this.controller.reason ?? error : error;
  }

  dispose(): void {
    this.stopResponseTimer();
    this.stopWatching?.();
  }
}

/** The upstream body, with an abort (a deadline, the idle timer) reported as its reason. */
async function* readStream(body: AsyncIterable<unknown> & { destroy(error?: Error): unknown }, deadline: RequestDeadline, idle: IdleTimer): AsyncGenerator<Uint8Array> {
  const iterator = body[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      let step: IteratorResult<unknown>;
      try {
        step = await iterator.next();
      } catch (error) {
        throw deadline.explain(error);
      }
      if (step.done === true) {
        finished = true;
        return;
      }
      yield step.value as Uint8Array;
    }
  } finally {
    // A consumer that stops early (client gone, error downstream) must free the socket.
    if (!finished) body.destroy();
    idle.disarm();
    deadline.dispose();
  }
}

async function* emptyBody(): AsyncGenerator<Uint8Array> {
  // Nothing to read: the error body was already consumed into `text`.
}

/** The body as JSON, or undefined when it is empty or malformed. */
export function parseJsonOrUndefined(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  const lowered: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) lowered[name.toLowerCase()] = value;
  return lowered;
}
