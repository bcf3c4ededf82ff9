import { GatewayError } from '../errors/gateway-error.js';

const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;
const MAX_SECONDS = 7 * 86_400;

/**
 * `completion_window` (spec default `24h`): a whole number with a unit, `s`, `m`, `h` or `d`,
 * at most 7 days. The hosted API takes only `24h`; shorter windows are useful locally (a batch
 * that must finish within the hour, tests of expiry).
 */
export function completionWindowSeconds(window: string): number {
  const match = /^(\d{1,7})(s|m|h|d)$/.exec(window);
  const seconds = match === null ? NaN : Number(match[1]) * UNIT_SECONDS[match[2] as keyof typeof UNIT_SECONDS];
  if (!Number.isFinite(seconds) || seconds < 1 || seconds > MAX_SECONDS) {
    throw new GatewayError('VALIDATION_4005', 'completion_window must be a duration such as "24h", "90m" or "2d" (at most 7 days).', { field: 'completion_window' });
  }
  return seconds;
}
