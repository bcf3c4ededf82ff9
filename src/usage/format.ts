import { Decimal } from '../billing/money.js';

/** Human-readable numbers for the usage tables and the dashboard (the JSON keeps exact values). */

export function formatCount(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** A decimal amount (EUR or energy units) to 3 significant digits, never in exponent form. */
export function formatAmount(value: string | number): string {
  const amount = new Decimal(value);
  if (amount.isZero()) return '0';
  if (amount.abs().gte(100)) return amount.toDecimalPlaces(2).toFixed();
  return amount.toSignificantDigits(3).toFixed();
}

const SCALES: ReadonlyArray<readonly [number, string]> = [
  [1e3, 'k'],
  [1, ''],
  [1e-3, 'm'],
  [1e-6, 'µ'],
  [1e-9, 'n'],
];

/** value in `unit`, shown with the SI prefix that keeps it at or above 1 (3 significant digits). */
export function formatSi(value: number, unit: string): string {
  if (value === 0 || !Number.isFinite(value)) return `0 ${unit}`;
  const magnitude = Math.abs(value);
  const [scale, prefix] = SCALES.find(([factor]) => magnitude >= factor) ?? SCALES[SCALES.length - 1]!;
  return `${Number((value / scale).toPrecision(3))} ${prefix}${unit}`;
}

export function formatKwh(kwh: number): string {
  return formatSi(kwh * 1000, 'Wh');
}

export function formatCo2(grams: number): string {
  return formatSi(grams, 'g');
}

export function formatMs(ms: number): string {
  return ms >= 10 ? String(Math.round(ms)) : String(Number(ms.toPrecision(2)));
}
