import * as nodeCrypto from 'node:crypto';
import { randomUrlSafe } from '../util/ids.js';

export const KEY_PREFIX = 'sk-svc-';
const KEY_PATTERN = /^sk-svc-[A-Za-z0-9_-]{128}$/;

/** `sk-svc-` + 128 random URL-safe characters (spec "API key"). */
export function generateApiKey(): string {
  return `${KEY_PREFIX}${randomUrlSafe(128)}`;
}

export function isWellFormedKey(candidate: string): boolean {
  return KEY_PATTERN.test(candidate);
}

/** crypto.hash, the one-shot digest (Node ≥ 20.12): no Hash object per request. Older Node 20s lack it. */
const oneShotHash = (nodeCrypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

/** sha256 hex of the key. */
export function hashApiKey(key: string): string {
  return oneShotHash === undefined ? nodeCrypto.createHash('sha256').update(key, 'utf8').digest('hex') : oneShotHash('sha256', key, 'hex');
}

/**
 * Constant-time comparison of two hex digests, case-insensitive (hex letters compared with bit
 * 0x20 set, which leaves digits as they are): every character is compared whatever differs, and
 * no Buffer is allocated per request. Digests of different lengths differ.
 */
export function digestsEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index += 1) difference |= (a.charCodeAt(index) | 0x20) ^ (b.charCodeAt(index) | 0x20);
  return difference === 0;
}

/** What `keys list` shows: recognisable, never usable. */
export function displayKey(key: string): string {
  return `${key.slice(0, KEY_PREFIX.length + 4)}…${key.slice(-4)}`;
}
