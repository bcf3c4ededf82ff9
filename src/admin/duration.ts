import { AdminError } from './admin-error.js';

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** "30d", "12h", "90m", "3600s", "2w" → seconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+)\s*([smhdw])$/.exec(text.trim());
  if (match === null || Number(match[1]) <= 0) {
    throw new AdminError(`invalid duration "${text}"`, 'use a positive number with a unit: 90m, 12h, 30d, 2w');
  }
  return Number(match[1]) * UNIT_SECONDS[match[2]!]!;
}
