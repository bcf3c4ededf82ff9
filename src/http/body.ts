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
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.off('data', onData);
        request.pause();
        reject(new BodyTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.once('end', () => resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8')));
    request.once('error', reject);
    request.once('aborted', () => reject(new GatewayError('VALIDATION_4005', 'The client closed the connection before the body was complete.', { field: 'body' })));
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

/**
 * Deepest nesting a JSON body may have. JSON.parse copes with any depth, but everything after it
 * that recurses (validation, JSON.stringify, token counting, translation) would overflow the stack
 * on a body nested thousands deep (issue 14); real requests, JSON schemas included, stay far below.
 */
export const MAX_JSON_DEPTH = 128;

/** True when `value` nests containers deeper than `limit` (an explicit stack: no recursion here either). */
function nestingExceeds(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: Array<{ node: object; depth: number }> = [{ node: value, depth: 1 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (depth > limit) return true;
    const children = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) stack.push({ node: child, depth: depth + 1 });
    }
  }
  return false;
}
