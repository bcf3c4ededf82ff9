import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../errors/gateway-error.js';

/** Thrown for bodies over the limit; the server answers 413 and closes the connection. */
export class BodyTooLargeError extends GatewayError {
  constructor(limit: number) {
    super('VALIDATION_4013', `Request body is larger than the limit of ${limit} bytes.`, { limit_bytes: limit });
  }
}

/** Reads a JSON body with a byte limit; malformed JSON → VALIDATION_4005 (spec, DESIGN §5). */
export async function readJsonBody(request: IncomingMessage, limit: number): Promise<unknown> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLargeError(limit);
  // Plain events rather than `for await`: the stream async iterator costs far more per request.
  const text = await new Promise<string>((resolve, reject) => {
    (request as ReadingRequest)[READER] = new BodyReader(limit, resolve, reject);
    request.on('data', onBodyData);
    request.on('end', onBodyEnd);
    request.on('error', onBodyError);
    request.on('aborted', onBodyAborted);
  });
  if (text.trim() === '') throw new GatewayError('VALIDATION_4005', 'The request body is empty; send a JSON object.', { field: 'body' });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch (error) {
    throw new GatewayError('VALIDATION_4005', `The request body is not valid JSON (${(error as Error).message}).`, { field: 'body' }, { cause: error });
  }
  if (nestingExceeds(parsed, MAX_JSON_DEPTH)) {
    throw new GatewayError('VALIDATION_4005', `The request body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels.`, { field: 'body', max_depth: MAX_JSON_DEPTH });
  }
  return parsed;
}

/** Where a request being read keeps its reader: the listeners below are shared, and find it through `this`. */
const READER = Symbol('igw.bodyReader');

interface ReadingRequest extends IncomingMessage {
  [READER]?: BodyReader | undefined;
}

/**
 * One body being read: its chunks and where the outcome goes. The four listeners are module
 * functions, not closures per request: they stay attached as long as the request lives (the whole
 * exchange), and the reader itself is let go as soon as the body is in (issue 18 item 3).
 */
class BodyReader {
  readonly chunks: Buffer[] = [];
  size = 0;

  constructor(
    readonly limit: number,
    readonly resolve: (text: string) => void,
    readonly reject: (error: Error) => void,
  ) {}
}

function onBodyData(this: ReadingRequest, chunk: Buffer): void {
  const reader = this[READER];
  if (reader === undefined) return;
  reader.size += chunk.length;
  if (reader.size > reader.limit) {
    this.off('data', onBodyData);
    this.pause();
    this[READER] = undefined;
    reader.reject(new BodyTooLargeError(reader.limit));
    return;
  }
  reader.chunks.push(chunk);
}

function onBodyEnd(this: ReadingRequest): void {
  const reader = this[READER];
  if (reader === undefined) return;
  this[READER] = undefined;
  const { chunks, size } = reader;
  reader.resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8'));
}

function onBodyError(this: ReadingRequest, error: Error): void {
  const reader = this[READER];
  this[READER] = undefined;
  reader?.reject(error);
}

function onBodyAborted(this: ReadingRequest): void {
  const reader = this[READER];
  this[READER] = undefined;
  reader?.reject(new GatewayError('VALIDATION_4005', 'The client closed the connection before the body was complete.', { field: 'body' }));
}

/**
 * Deepest nesting a JSON body may have. JSON.parse copes with any depth, but everything after it
 * that recurses (validation, JSON.stringify, token counting, translation) would overflow the stack
 * on a body nested thousands deep (issue 14); real requests, JSON schemas included, stay far below.
 */
export const MAX_JSON_DEPTH = 128;

/** True when `value` nests containers deeper than `limit` (an explicit stack: no recursion here either). */
function nestingExceeds(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  // Two parallel stacks and a key walk: no pair object and no values array per container.
  const nodes: object[] = [value];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    const depth = depths.pop()!;
    if (depth > limit) return true;
    if (Array.isArray(node)) {
      for (const child of node as unknown[]) {
        if (typeof child === 'object' && child !== null) {
          nodes.push(child);
          depths.push(depth + 1);
        }
      }
    } else {
      const record = node as Record<string, unknown>;
      for (const key in record) {
        const child = record[key];
        if (typeof child === 'object' && child !== null) {
          nodes.push(child);
          depths.push(depth + 1);
        }
      }
    }
  }
  return false;
}
