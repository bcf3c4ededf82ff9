import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { GatewayError } from '../errors/gateway-error.js';
import { echoableHeaderValue } from './header-value.js';

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  return bare === 'localhost' || bare === '::1' || (isIP(bare) === 4 && bare.startsWith('127.'));
}

/** Host name of a Host header ("127.0.0.1:8787" → "127.0.0.1", "[::1]:80" → "::1"). */
function hostName(header: string): string {
  if (header.startsWith('[')) return header.slice(1, header.indexOf(']'));
  const colon = header.lastIndexOf(':');
  return colon === -1 ? header : header.slice(0, colon);
}

/**
 * DNS-rebinding guard (DESIGN §6): bound to loopback, only loopback Host names are answered, so a
 * web page that rebinds its own name to 127.0.0.1 cannot reach the gateway.
 */
export function checkHost(request: IncomingMessage, boundHost: string): void {
  if (!isLoopbackHost(boundHost)) return;
  const header = request.headers.host;
  if (header === undefined || !isLoopbackHost(hostName(header.toLowerCase()).replace(/\.$/, ''))) {
    throw new GatewayError('AUTH_1040', `Host "${header ?? ''}" is not allowed: use http://127.0.0.1 or http://localhost to reach this gateway.`);
  }
}

/** CORS headers for an allowed origin; throws AUTH_1041 for any other browser origin. */
export function corsHeaders(request: IncomingMessage, allowedOrigins: readonly string[]): Record<string, string> {
  const origin = request.headers.origin;
  if (origin === undefined) return {};
  // With "*" any origin is echoed back: only one that is a sane header value (issue 14).
  if ((!allowedOrigins.includes(origin) && !allowedOrigins.includes('*')) || echoableHeaderValue(origin) === undefined) {
    throw new GatewayError('AUTH_1041', `Cross-origin request from ${origin} refused: add it to server.cors_origins in the config to allow it.`);
  }
  return {
    'access-control-allow-origin': origin,
    vary: 'Origin',
    'access-control-expose-headers': 'x-request-id, x-ratelimit-limit-requests, x-ratelimit-remaining-requests, x-ratelimit-reset-requests, retry-after',
  };
}
