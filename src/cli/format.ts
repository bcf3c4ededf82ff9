/**
 * Numbers, units and plurals as people read them (one module for every command and view):
 * `1 provider`, `3 providers`, `24 B/s`, `1.5 MiB`, `12.3 rows/s`. Machine output (--json)
 * keeps raw numbers; these are for text only.
 */

/** `1 provider`, `0 providers`, `2 entries` (give the plural when it is not noun + "s"). */
export function plural(count: number, noun: string, pluralNoun = `${noun}s`): string {
  return `${formatNumber(count)} ${count === 1 ? noun : pluralNoun}`;
}

/** The noun alone, for phrases that place the count elsewhere ("3 of 4 rows"). */
export function nounFor(count: number, noun: string, pluralNoun = `${noun}s`): string {
  return count === 1 ? noun : pluralNoun;
}

/**
 * A number with at most `digits` decimals, no trailing zeros, and no float noise
 * (24.296675191815854 → "24.3"; 3 → "3"). Integers of any size stay exact.
 */
export function formatNumber(value: number, digits = 1): string {
  if (!Number.isFinite(value)) return '-';
  if (Number.isInteger(value)) return String(value);
  return String(Number(value.toFixed(digits)));
}

const BYTE_UNITS = ['KiB', 'MiB', 'GiB', 'TiB'];

/** Bytes in binary units with three significant digits: `512 B`, `1.5 KiB`, `105 MiB`. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '-';
  if (bytes < 1024) return `${Math.round(bytes)} B`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${Number(value.toPrecision(3))} ${BYTE_UNITS[unit]}`;
}

/** A transfer rate: `24 B/s`, `1.2 MiB/s`. */
export function formatByteRate(bytesPerSecond: number): string {
  return `${formatBytes(bytesPerSecond)}/s`;
}

/** A count per second: `12.3 rows/s`, `- rows/s` while unknown. */
export function formatRate(perSecond: number | null, unit: string): string {
  return `${perSecond === null ? '-' : formatNumber(perSecond)} ${unit}/s`;
}

/** A duration for progress lines: `42s`, `3m05s`, `2h10m`. */
export function formatDuration(seconds: number): string {
  const whole = Math.round(seconds);
  if (whole < 60) return `${whole}s`;
  if (whole < 3600) return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, '0')}s`;
  return `${Math.floor(whole / 3600)}h${String(Math.floor((whole % 3600) / 60)).padStart(2, '0')}m`;
}

/** "a, b or c" for short lists in sentences. */
export function formatList(items: readonly string[], conjunction = 'or'): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${conjunction} ${items.at(-1)}`;
}
