import { createHash, timingSafeEqual } from 'node:crypto';
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

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** What `keys list` shows: recognisable, never usable. */
export function displayKey(key: string): string {
  return `${key.slice(0, KEY_PREFIX.length + 4)}…${key.slice(-4)}`;
}
