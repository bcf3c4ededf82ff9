import { connect } from 'node:net';

/**
 * A bare HTTP/1.1 exchange over node:net. fetch and undici refuse to send header values with
 * control or non-ASCII bytes, odd methods or malformed targets; the fuzzer needs exactly those,
 * so it writes the bytes itself and reads the answer until the server closes the connection.
 */

export interface RawRequest {
  method: string;
  /** The request target as bytes go on the wire (latin1: each char one byte). */
  target: string;
  /** Header lines in order; values are raw bytes so any byte can be sent. */
  headers: Array<[string, Buffer | string]>;
  body: Buffer;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** False when the connection closed before the body's declared end (a cut stream). */
  complete: boolean;
}

export type RawOutcome =
  | { kind: 'response'; response: RawResponse }
  /** The server closed the connection without a complete status line. */
  | { kind: 'closed'; bytes: number }
  /** Nothing ended within the time limit: a hang. */
  | { kind: 'timeout'; bytes: number };

/** The request exactly as it goes on the wire (with `connection: close` so the answer ends with the socket). */
export function encodeRequest(request: RawRequest): Buffer {
  const head: Buffer[] = [Buffer.from(`${request.method} ${request.target} HTTP/1.1\r\n`, 'latin1')];
  for (const [name, value] of request.headers) {
    head.push(Buffer.from(`${name}: `, 'latin1'), typeof value === 'string' ? Buffer.from(value, 'latin1') : value, Buffer.from('\r\n'));
  }
  head.push(Buffer.from('\r\n'));
  return Buffer.concat([...head, request.body]);
}

/** Sends one request; `halfClose` ends our side after it (for bodies shorter than they claim). */
export function sendRaw(port: number, request: RawRequest, timeoutMs: number, halfClose = false): Promise<RawOutcome> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    const parts: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (outcome: RawOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ kind: 'timeout', bytes: size }), timeoutMs);
    socket.on('data', (part: Buffer) => {
      parts.push(part);
      size += part.length;
    });
    // A reset after a complete answer is fine (the server may close before reading all we sent).
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const response = parseResponse(Buffer.concat(parts), request.method === 'HEAD');
      finish(response === undefined ? { kind: 'closed', bytes: size } : { kind: 'response', response });
    });
    socket.on('connect', () => {
      if (halfClose) socket.end(encodeRequest(request));
      else socket.write(encodeRequest(request), () => undefined);
    });
  });
}

/** Status, headers and (de-chunked) body of the first response in `bytes`; undefined without a complete head. */
export function parseResponse(bytes: Buffer, headRequest: boolean): RawResponse | undefined {
  // Interim answers (100 Continue for `expect: 100-continue`) come before the real one.
  while (/^HTTP\/1\.[01] 1\d\d/.test(bytes.subarray(0, 16).toString('latin1'))) {
    const interimEnd = bytes.indexOf('\r\n\r\n');
    if (interimEnd === -1) return undefined;
    bytes = bytes.subarray(interimEnd + 4);
  }
  const headEnd = bytes.indexOf('\r\n\r\n');
  if (headEnd === -1) return undefined;
  const lines = bytes.subarray(0, headEnd).toString('latin1').split('\r\n');
  const statusMatch = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '');
  if (statusMatch === null) return undefined;
  const status = Number(statusMatch[1]);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const rest = bytes.subarray(headEnd + 4);
  if (headRequest || status === 204 || status === 304) return { status, headers, body: Buffer.alloc(0), complete: true };
  if ((headers['transfer-encoding'] ?? '').toLowerCase().includes('chunked')) {
    const body = dechunk(rest);
    return body === undefined ? { status, headers, body: rest, complete: false } : { status, headers, body, complete: true };
  }
  if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    return { status, headers, body: rest.subarray(0, length), complete: rest.length >= length };
  }
  return { status, headers, body: rest, complete: true };
}

/** Chunked transfer coding → body; undefined when the terminating chunk is missing (a cut stream). */
function dechunk(bytes: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', offset);
    if (lineEnd === -1) return undefined;
    const size = parseInt(bytes.subarray(offset, lineEnd).toString('latin1'), 16);
    if (Number.isNaN(size)) return undefined;
    if (size === 0) return Buffer.concat(parts);
    const start = lineEnd + 2;
    if (bytes.length < start + size) return undefined;
    parts.push(bytes.subarray(start, start + size));
    offset = start + size + 2;
  }
}
