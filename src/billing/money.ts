import { Decimal as BaseDecimal } from 'decimal.js';

/**
 * Exact decimal money. Binary floats never hold an amount: config numbers are converted through
 * their shortest decimal string (0.14 → "0.14"), which is exactly what the user wrote.
 */
/** 40 significant digits: balances in the billions with sub-nano-EUR costs stay exact. */
export const Decimal = BaseDecimal.clone({ precision: 40 });
export type Decimal = InstanceType<typeof Decimal>;
export type Amount = Decimal;
export type Balance = Decimal | 'unlimited';

export const ZERO = new Decimal(0);

/** Config rates are a handful of numbers used on every request: convert each once (Decimals are immutable). */
const numberCache = new Map<number, Decimal>();

export function toDecimal(value: string | number | Decimal): Decimal {
  if (value instanceof Decimal) return value;
  if (typeof value === 'string') return new Decimal(value);
  let cached = numberCache.get(value);
  if (cached === undefined) {
    cached = new Decimal(String(value));
    if (numberCache.size < 10_000) numberCache.set(value, cached);
  }
  return cached;
}

/**
 * Balance texts read lately. A balance's text changes once per debit, and every request in flight
 * reads it (preflight, then settlement's choice of balance): one parse per text instead of one
 * per read (issue 18 item 3). Started over when full, so it stays small.
 */
const recentBalances = new Map<string, Decimal>();
const RECENT_BALANCES = 256;

export function parseBalance(value: string | number): Balance {
  if (value === 'unlimited') return 'unlimited';
  if (typeof value !== 'string') return toDecimal(value);
  let parsed = recentBalances.get(value);
  if (parsed === undefined) {
    parsed = new Decimal(value);
    if (recentBalances.size >= RECENT_BALANCES) recentBalances.clear();
    recentBalances.set(value, parsed);
  }
  return parsed;
}

export function formatBalance(balance: Balance): string {
  return balance === 'unlimited' ? 'unlimited' : formatDecimal(balance);
}

/** Plain notation, no exponent, no trailing zeros; at most 12 decimal places (sub-nano-EUR noise dropped). */
export function formatDecimal(value: Decimal): string {
  // Most amounts have 12 places or fewer: rounding them would only copy them (a decimal.js allocation).
  if (value.decimalPlaces() <= 12) return value.isZero() ? '0' : value.toFixed();
  const rounded = value.toDecimalPlaces(12, Decimal.ROUND_HALF_EVEN);
  return rounded.isZero() ? '0' : rounded.toFixed();
}

