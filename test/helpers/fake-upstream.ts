import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A real loopback HTTP server standing in for a provider, so SSE framing, keep-alive,
 * timeouts and disconnects in tests are the real thing (ARCHITECTURE "Tests").
 */

export interface FakeRequest {
  method: string;
  /** Path and query as received, e.g. `/v1/chat/completions`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The JSON body, or undefined when it is empty or not JSON. */
  body: any;
  rawBody: string;
}

export interface RecordedRequest extends FakeRequest {
  /** True once the reply was completely written (false for hang/destroy or a cut-off reply). */
  replyFinished: boolean;
  /** True when the connection closed before the reply was finished (the client went away). */
  clientClosedEarly: boolean;
  /** Resolves when this request's connection/response is closed, whichever side closed it. */
  closed: Promise<void>;
  /** The client's port: equal ports on two requests mean a reused keep-alive connection. */
  remotePort: number | undefined;
}

export type FakeReply =
  /** A JSON answer (status 200 unless given). */
  | { status?: number; json: unknown; headers?: Record<string, string> }
  /** An SSE answer: each item is one `data:` payload; `data: [DONE]` follows unless `sseDone: false`. */
  | { status?: number; sse: string[]; sseDone?: boolean; delayMs?: number; headers?: Record<string, string> }
  /** Raw event-stream text written as-is, optionally in random 1–16 byte pieces (seeded). */
  | { status?: number; rawSse: string; randomChunks?: boolean; seed?: number; delayMs?: number; headers?: Record<string, string> }
  /** Headers are never sent; the request waits until the client gives up or the fake closes. */
  | { hang: true }
  /** The socket is destroyed, optionally after a 200 SSE head and these `data:` payloads. */
  | { destroy: true; sseBefore?: string[]; delayMs?: number }
  /** A plain text answer (error bodies that are not JSON, HTML error pages). */
  | { status: number; text: string; headers?: Record<string, string> };

export type FakeHandler = (request: FakeRequest) => FakeReply | Promise<FakeReply>;

export interface FakeUpstream {
  /** Base URL including the version segment: `http://127.0.0.1:PORT/v1`. */
  url: string;
  origin: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startFakeUpstream(handler: FakeHandler): Promise<FakeUpstream> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((incoming, response) => {
    const parts: Buffer[] = [];
    incoming.on('data', (part: Buffer) => parts.push(part));
    incoming.on('end', () => {
      const rawBody = Buffer.concat(parts).toString('utf8');
      const fakeRequest: FakeRequest = {
        method: incoming.method ?? 'GET',
        path: incoming.url ?? '/',
        headers: incoming.headers,
        body: parseJson(rawBody),
        rawBody,
      };
      let markClosed: () => void = () => undefined;
      const recorded: RecordedRequest = {
        ...fakeRequest,
        replyFinished: false,
        clientClosedEarly: false,
        remotePort: incoming.socket.remotePort,
        closed: new Promise<void>((resolve) => {
          markClosed = resolve;
        }),
      };
      requests.push(recorded);
      response.on('finish', () => {
        recorded.replyFinished = true;
      });
      response.on('close', () => {
        if (!recorded.replyFinished) recorded.clientClosedEarly = true;
        markClosed();
      });
      void Promise.resolve()
        .then(() => handler(fakeRequest))
        .then((reply) => sendReply(reply, response, incoming.socket))
        .catch((error: unknown) => {
          if (!response.headersSent) {
            response.writeHead(599, { 'content-type': 'text/plain' });
            response.end(`fake upstream handler failed: ${String(error)}`);
          } else {
            response.destroy();
          }
        });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/v1`,
    origin,
    requests,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function sendReply(reply: FakeReply, response: ServerResponse, socket: Socket): Promise<void> {
  if ('hang' in reply) return;
  if ('destroy' in reply) {
    if (reply.sseBefore !== undefined) {
      response.writeHead(200, SSE_HEADERS);
      for (const payload of reply.sseBefore) {
        response.write(`data: ${payload}\n\n`);
        if (reply.delayMs !== undefined) await sleep(reply.delayMs);
      }
      await sleep(reply.delayMs ?? 20);
    }
    socket.destroy();
    return;
  }
  if ('json' in reply) {
    response.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
    response.end(JSON.stringify(reply.json));
    return;
  }
  if ('text' in reply) {
    response.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
    response.end(reply.text);
    return;
  }
  response.writeHead(reply.status ?? 200, { ...SSE_HEADERS, ...reply.headers });
  if ('sse' in reply) {
    const frames = reply.sse.map((payload) => `data: ${payload}\n\n`);
    if (reply.sseDone !== false) frames.push('data: [DONE]\n\n');
    for (const [position, frame] of frames.entries()) {
      if (response.destroyed) return;
      if (position > 0 && reply.delayMs !== undefined) await sleep(reply.delayMs);
      response.write(frame);
    }
    // Real servers close the body a moment after [DONE], not in the same packet.
    if (reply.delayMs !== undefined) await sleep(reply.delayMs);
    response.end();
    return;
  }
  const pieces = reply.randomChunks === true ? splitRandomly(Buffer.from(reply.rawSse, 'utf8'), seededRandom(reply.seed ?? 1)) : [Buffer.from(reply.rawSse, 'utf8')];
  for (const piece of pieces) {
    if (response.destroyed) return;
    response.write(piece);
    // Without a pause, the kernel would merge the pieces again.
    await sleep(reply.delayMs ?? 0);
  }
  response.end();
}

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

/** Splits bytes into 1–16 byte pieces (cuts through multi-byte characters on purpose). */
export function splitRandomly(bytes: Uint8Array, random: () => number = Math.random): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.length; ) {
    const size = 1 + Math.floor(random() * 16);
    pieces.push(bytes.subarray(offset, offset + size));
    offset += size;
  }
  return pieces;
}

/** A small deterministic PRNG (mulberry32) so random splits are reproducible. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function parseJson(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function sleep(milliseconds: number): Promise<void> {
  if (milliseconds <= 0) return new Promise((resolve) => setImmediate(resolve));
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
