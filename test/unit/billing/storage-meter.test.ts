import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/billing/money.js';
import { BYTES_PER_GB, DAY_MS, StorageMeter, dailyCharge, emptyMeterState } from '../../../src/billing/storage-meter.js';

const GB = BYTES_PER_GB;
const HOUR = 3_600_000;
const DAY0 = Date.UTC(2026, 2, 1);

/** GB-days per account-day from a sequence of [time offset, store, account, GB or null = deleted]. */
function meter(events: Array<[number, string, string, number | null]>, settleAt: number): Record<string, string> {
  const storageMeter = new StorageMeter();
  for (const [offset, store, account, gb] of events) {
    if (gb === null) storageMeter.remove(store, DAY0 + offset);
    else storageMeter.observe(store, account, gb * GB, DAY0 + offset);
  }
  return Object.fromEntries(storageMeter.takeCompleteDays(DAY0 + settleAt).map((day) => [`${day.account} ${day.day}`, new Decimal(day.byteMs.toString()).div(GB).div(DAY_MS).toString()]));
}

describe('StorageMeter', () => {
  it.each<{ name: string; events: Array<[number, string, string, number | null]>; settleAt: number; expected: Record<string, string> }>([
    { name: 'a whole day at one size', events: [[0, 's1', 'a', 2]], settleAt: DAY_MS, expected: { 'a 2026-03-01': '2' } },
    { name: 'time weighted: 2 GB for 12 h then 4 GB', events: [[0, 's1', 'a', 2], [12 * HOUR, 's1', 'a', 4]], settleAt: DAY_MS, expected: { 'a 2026-03-01': '3' } },
    { name: 'a store created at 18:00', events: [[18 * HOUR, 's1', 'a', 4]], settleAt: DAY_MS, expected: { 'a 2026-03-01': '1' } },
    { name: 'a store deleted at 06:00 costs nothing after', events: [[0, 's1', 'a', 4], [6 * HOUR, 's1', 'a', null]], settleAt: 3 * DAY_MS, expected: { 'a 2026-03-01': '1' } },
    { name: 'two stores of one account add up', events: [[0, 's1', 'a', 1], [0, 's2', 'a', 0.5]], settleAt: DAY_MS, expected: { 'a 2026-03-01': '1.5' } },
    { name: 'accounts are kept apart', events: [[0, 's1', 'a', 1], [0, 's2', 'b', 2]], settleAt: DAY_MS, expected: { 'a 2026-03-01': '1', 'b 2026-03-01': '2' } },
    { name: 'a span across midnight is split by UTC day', events: [[12 * HOUR, 's1', 'a', 2]], settleAt: 2 * DAY_MS + 6 * HOUR, expected: { 'a 2026-03-01': '1', 'a 2026-03-02': '2' } },
    { name: 'the current day is not complete: not taken', events: [[0, 's1', 'a', 2]], settleAt: 23 * HOUR, expected: {} },
    { name: 'an empty store costs nothing', events: [[0, 's1', 'a', 0]], settleAt: DAY_MS, expected: {} },
  ])('$name', ({ events, settleAt, expected }) => {
    expect(meter(events, settleAt)).toEqual(expected);
  });

  it('takes a day once; the rest of today stays pending', () => {
    const storageMeter = new StorageMeter();
    storageMeter.observe('s1', 'a', GB, DAY0);
    expect(storageMeter.takeCompleteDays(DAY0 + DAY_MS + HOUR).map((day) => day.day)).toEqual(['2026-03-01']);
    expect(storageMeter.takeCompleteDays(DAY0 + DAY_MS + 2 * HOUR)).toEqual([]);
    expect(storageMeter.takeCompleteDays(DAY0 + 2 * DAY_MS)).toEqual([{ account: 'a', day: '2026-03-02', byteMs: BigInt(GB) * BigInt(DAY_MS) }]);
  });

  it('resumes from a saved state exactly where it stopped (JSON round trip)', () => {
    const first = new StorageMeter();
    first.observe('s1', 'a', 3 * GB, DAY0);
    first.accrueAll(DAY0 + 8 * HOUR);
    const resumed = new StorageMeter(JSON.parse(JSON.stringify(first.snapshot())));
    expect(resumed.takeCompleteDays(DAY0 + DAY_MS)).toEqual([{ account: 'a', day: '2026-03-01', byteMs: 3n * BigInt(GB) * BigInt(DAY_MS) }]);
    expect(resumed.bytesOf('s1')).toBe(3 * GB);
  });

  it('counts sizes past what a float holds exactly (10 TB for a day)', () => {
    const storageMeter = new StorageMeter(emptyMeterState());
    storageMeter.observe('s1', 'a', 10_000 * GB + 1, DAY0);
    const [day] = storageMeter.takeCompleteDays(DAY0 + DAY_MS);
    expect(day!.byteMs).toBe((10_000n * BigInt(GB) + 1n) * BigInt(DAY_MS));
  });

  it('accrues nothing for a clock that stepped back', () => {
    const storageMeter = new StorageMeter();
    storageMeter.observe('s1', 'a', GB, DAY0 + HOUR);
    storageMeter.observe('s1', 'a', 2 * GB, DAY0);
    expect(storageMeter.takeCompleteDays(DAY0 + HOUR)).toEqual([]);
  });
});

describe('dailyCharge', () => {
  const day = (gb: number) => BigInt(Math.round(gb * GB)) * BigInt(DAY_MS);
  it.each<{ name: string; byteMs: bigint; freeGb: string; price: string; gbDays: string; billable: string; eur: string }>([
    { name: 'within the allowance', byteMs: day(0.8), freeGb: '1', price: '0.09', gbDays: '0.8', billable: '0', eur: '0' },
    { name: 'exactly the allowance', byteMs: day(1), freeGb: '1', price: '0.09', gbDays: '1', billable: '0', eur: '0' },
    { name: 'above the allowance', byteMs: day(3.5), freeGb: '1', price: '0.09', gbDays: '3.5', billable: '2.5', eur: '0.225' },
    { name: 'no allowance', byteMs: day(2), freeGb: '0', price: '0.1', gbDays: '2', billable: '2', eur: '0.2' },
    { name: 'a partial day: 4 GB for 6 hours is 1 GB-day', byteMs: BigInt(4 * GB) * BigInt(6 * 3_600_000), freeGb: '0.5', price: '0.09', gbDays: '1', billable: '0.5', eur: '0.045' },
    { name: 'a free price', byteMs: day(5), freeGb: '1', price: '0', gbDays: '5', billable: '4', eur: '0' },
    { name: 'sub-pico amounts round to 12 places', byteMs: 1_000_000_000n * BigInt(DAY_MS) + 86_400n, freeGb: '1', price: '0.09', gbDays: '1.000000000001', billable: '1e-12', eur: '0' },
    { name: 'amounts are exact decimals', byteMs: day(1.1), freeGb: '1', price: '0.07', gbDays: '1.1', billable: '0.1', eur: '0.007' },
  ])('$name', ({ byteMs, freeGb, price, gbDays, billable, eur }) => {
    const charge = dailyCharge(byteMs, new Decimal(freeGb), new Decimal(price));
    expect(charge.gbDays.toString()).toBe(gbDays);
    expect(charge.billableGbDays.toString()).toBe(billable);
    expect(charge.eur.toString()).toBe(eur);
  });
});
