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
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new BodyTooLargeError(limit);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks, size).toString('utf8');
  if (text.trim() === '') throw new GatewayError('VALIDATION_4005', 'The request body is empty; send a JSON object.', { field: 'body' });
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new GatewayError('VALIDATION_4005', `The request body is not valid JSON (${(error as Error).message}).`, { field: 'body' }, { cause: error });
  }
}
