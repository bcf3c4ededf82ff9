/**
 * Retry-After (RFC 9110 §10.2.3): either delay-seconds or an HTTP-date. Providers send both
 * forms, and some send fractional seconds ("0.5"), which we accept rather than ignore.
 */

/** Milliseconds to wait from `nowMs`, or undefined when absent or unreadable. A past date is 0. */
export function parseRetryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  // Only date-shaped values: Date.parse would otherwise read "-5" or "1e3" as some year.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/** The Retry-After of a response-headers record, whatever the header name's case. */
export function retryAfterHeader(headers: Readonly<Record<string, string>>): string | undefined {
  for (const [name, value] of Object.entries(headers)) if (name.toLowerCase() === 'retry-after') return value;
  return undefined;
}
