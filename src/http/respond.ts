import type { ServerResponse } from 'node:http';

/** Writes a JSON response with the standard headers (request id, rate limits, extras). */
export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

export function sendText(response: ServerResponse, status: number, text: string, contentType: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { ...headers, 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
  response.end(text);
}
