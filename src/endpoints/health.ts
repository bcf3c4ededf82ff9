import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { sendJson, sendText } from '../http/respond.js';

/**
 * DESIGN §5: `GET /` and `HEAD /` answer 200 without a key, because clients probe the base URL
 * before their first call (Claude Code sends `HEAD /`); node leaves the body out for HEAD.
 */
export function handleRoot(response: ServerResponse, headers: Record<string, string>): void {
  sendText(response, 200, 'igw is running\n', 'text/plain; charset=utf-8', headers);
}

/** `GET /health` → `{status: "ok", version}` without a key, for supervisors and load balancers. */
export async function handleHealth(response: ServerResponse, headers: Record<string, string>): Promise<void> {
  sendJson(response, 200, { status: 'ok', version: await gatewayVersion() }, headers);
}

/**
 * The version of the installed package. Read per call (async, tiny, off the inference path)
 * rather than cached in a module singleton; src/ and dist/ sit at the same depth below it.
 */
async function gatewayVersion(): Promise<string> {
  const text = await readFile(new URL('../../package.json', import.meta.url), 'utf8');
  const version = (JSON.parse(text) as { version?: unknown }).version;
  return typeof version === 'string' ? version : 'unknown';
}
