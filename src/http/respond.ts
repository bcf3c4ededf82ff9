import type { ServerResponse } from 'node:http';
import { writeHeadWith } from './header-value.js';

/** Writes a JSON response with the standard headers (request id, rate limits, extras). */
export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  sendJsonText(response, status, JSON.stringify(body), headers);
}

/** The same for a body already serialised (a caller that splices upstream bytes into its answer). */
export function sendJsonText(response: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  writeHeadWith(response, status, headers, ['content-type', 'application/json; charset=utf-8', 'content-length', Buffer.byteLength(text)]);
  response.end(text);
}

export function sendText(response: ServerResponse, status: number, text: string, contentType: string, headers: Record<string, string> = {}): void {
  writeHeadWith(response, status, headers, ['content-type', contentType, 'content-length', Buffer.byteLength(text)]);
  response.end(text);
}
