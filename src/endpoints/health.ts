import type { ServerResponse } from 'node:http';
import { sendJson, sendText } from '../http/respond.js';
import { VERSION } from '../util/version.js';

/**
 * DESIGN §5: `GET /` and `HEAD /` answer 200 without a key, because clients probe the base URL
 * before their first call (Claude Code sends `HEAD /`); node leaves the body out for HEAD.
 */
export function handleRoot(response: ServerResponse, headers: Record<string, string>): void {
  sendText(response, 200, 'igw is running\n', 'text/plain; charset=utf-8', headers);
}

/** `GET /health` → `{status: "ok", version}` without a key, for supervisors and load balancers. */
export function handleHealth(response: ServerResponse, headers: Record<string, string>): void {
  sendJson(response, 200, { status: 'ok', version: VERSION }, headers);
}
