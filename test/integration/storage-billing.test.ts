import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/admin/accounts-admin.js';
import { createKey } from '../../src/admin/keys-admin.js';
import { startGateway, type Gateway } from '../../src/app/gateway.js';
import { Decimal } from '../../src/billing/money.js';
import { STORAGE_ENDPOINT, STORAGE_REMOVAL_ENDPOINT } from '../../src/billing/storage-settlement.js';
import { buildConfig } from '../../src/config/load.js';
import { readRequestLog, type RequestLogEntry } from '../../src/store/request-log.js';
import { aggregateUsage } from '../../src/usage/aggregate.js';
import { silentLogger, type Logger } from '../../src/util/logger.js';
import { postJson, startTestGateway } from '../helpers/gateway.js';
import { ManualTime } from '../helpers/manual-time.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** 01:00 UTC: a store made now holds 23 hours of its first day. */
const START = Date.UTC(2026, 2, 1, 1);
/** Far above the real price, so a store of a few kilobytes costs whole euros a day. */
const PRICE = 1_000_000;
const billingConfig = (extra: Record<string, unknown> = {}) => ({
  billing: { storage_eur_per_gb_day: PRICE, initial_credits: '100', storage_grace_days: 2, ...extra },
  plans: { developer: { benefits: ['advanced_models', 'api_usage', 'studio_access'], storage_free_gb: 0 } },
});

const TEXT = 'Storage billing meters the processed size of every vector store: chunk text plus embeddings, per GB-day. '.repeat(8);

/** The charge for `bytes` held for `ms` (no free allowance), as igw rounds it. */
function expectedEur(bytes: number, ms: number): string {
  return new Decimal(bytes).mul(ms).div(1e9).div(DAY).mul(PRICE).toDecimalPlaces(12).toFixed();
}

async function storageLines(gateway: Gateway): Promise<RequestLogEntry[]> {
  await gateway.app.store.requestLog.flush();
  return (await readRequestLog(gateway.app.store.logFolder, 0)).filter((entry) => entry.kind === 'storage');
}

async function createStoreWithText(url: string, key: string, name = 'billed'): Promise<{ id: string; usage_bytes: number }> {
  const store = (await postJson(`${url}/v1/vector_stores`, key, { name })).json;
  expect((await postJson(`${url}/v1/vector_stores/${store.id}/sources/text`, key, { name: 'a.txt', text: TEXT })).status).toBe(200);
  return store;
}

async function storeObject(url: string, key: string, id: string): Promise<{ status: number; json: any }> {
  const response = await fetch(`${url}/v1/vector_stores/${id}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: response.status, json: await response.json() };
}

function credits(gateway: Gateway, account = 'default'): string {
  return gateway.app.store.accounts.get(account)!.credits;
}

describe('vector store storage billing', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('charges the processed size once a day to credits and shows it in usage', async () => {
    const time = new ManualTime(START);
    const test = await startTestGateway(billingConfig(), {}, { clock: time.clock, timers: time.timers });
    cleanups.push(() => test.close());
    const key = await test.newKey({ name: 'kb', vault: true });
    const store = await createStoreWithText(test.url, key);
    await test.gateway.app.vectorStores.idle();
    const bytes = (await storeObject(test.url, key, store.id)).json.usage_bytes as number;
    // usage_bytes, the size billed, is the processed size: chunk text (UTF-8) plus one float32 vector per chunk.
    const vectorStores = test.gateway.app.vectorStores;
    const [file] = vectorStores.filesOf(vectorStores.repository.store(store.id)!);
    const chunks = await vectorStores.fileChunks(file!);
    const dimensions = test.config.models['local-embed']!.dimensions!;
    expect(chunks.length).toBeGreaterThan(0);
    expect(bytes).toBe(chunks.reduce((sum, chunk) => sum + Buffer.byteLength(chunk.text, 'utf8'), 0) + chunks.length * dimensions * 4);

    // Quiet hours are jumped over (one late check); the hours around midnight run every check.
    await time.jump(22 * HOUR);
    expect(await storageLines(test.gateway)).toEqual([]);
    expect(credits(test.gateway)).toBe('100');

    // Midnight: the first day (23 hours of the store) is settled.
    await time.advance(2 * HOUR);
    const eur = expectedEur(bytes, 23 * HOUR);
    const [line, ...rest] = await storageLines(test.gateway);
    expect(rest).toEqual([]);
    expect(line).toMatchObject({ account: 'default', endpoint: STORAGE_ENDPOINT, eur, paid_with: 'credits', storage_day: '2026-03-01', time: new Date(Date.UTC(2026, 2, 2)).toISOString() });
    expect(credits(test.gateway)).toBe(new Decimal(100).minus(eur).toFixed());

    // The rest of the day charges nothing more; the next midnight charges a whole day.
    await time.jump(20 * HOUR);
    expect(await storageLines(test.gateway)).toHaveLength(1);
    await time.advance(4 * HOUR);
    const lines = await storageLines(test.gateway);
    expect(lines.map((entry) => [entry.storage_day, entry.eur])).toEqual([
      ['2026-03-01', eur],
      ['2026-03-02', expectedEur(bytes, DAY)],
    ]);

    // `igw usage` totals count the charges in EUR (not as requests).
    await test.gateway.app.store.requestLog.flush();
    const usage = aggregateUsage(await readRequestLog(test.gateway.app.store.logFolder, 0), 'model');
    expect(usage.rows.find((row) => row.group === '(vector store storage)')).toMatchObject({ requests: 0, eur: new Decimal(eur).plus(expectedEur(bytes, DAY)).toFixed() });
    expect(new Decimal(usage.total.eur).greaterThanOrEqualTo(new Decimal(eur).plus(expectedEur(bytes, DAY)))).toBe(true);
  });

  it('keeps the free allowance free', async () => {
    const time = new ManualTime(START);
    const test = await startTestGateway({ billing: { storage_eur_per_gb_day: PRICE, initial_credits: '100' } }, {}, { clock: time.clock, timers: time.timers });
    cleanups.push(() => test.close());
    await createStoreWithText(test.url, await test.newKey({ name: 'kb', vault: true }));
    await test.gateway.app.vectorStores.idle();
    await time.advance(DAY);
    const [line] = await storageLines(test.gateway);
    expect(line).toMatchObject({ storage_day: '2026-03-01', eur: '0', paid_with: null });
    expect(credits(test.gateway)).toBe('100');
  });

  it('survives restarts: a settled day is never charged twice, days missed while down are charged once', async () => {
    const time = new ManualTime(START);
    const dataDir = await mkdtemp(path.join(tmpdir(), 'igw-storage-billing-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const config = buildConfig(billingConfig(), null, {});
    const start = () => startGateway({ dataDir, config, port: 0, host: '127.0.0.1', logger: silentLogger, clock: time.clock, timers: time.timers });
    let gateway = await start();
    const { key } = await createKey(gateway.app.store, config, { name: 'kb', vault: true });
    const store = await createStoreWithText(gateway.url, key);
    await gateway.app.vectorStores.idle();
    const bytes = (await storeObject(gateway.url, key, store.id)).json.usage_bytes as number;
    await time.advance(DAY);
    expect(await storageLines(gateway)).toHaveLength(1);
    const afterFirst = credits(gateway);

    // Restarted the same day: nothing is due again.
    await gateway.close();
    gateway = await start();
    expect(await storageLines(gateway)).toHaveLength(1);
    expect(credits(gateway)).toBe(afterFirst);

    // Down for three days: each missed day is charged at start-up, at the size the store kept.
    await gateway.close();
    await time.jump(3 * DAY);
    gateway = await start();
    const lines = await storageLines(gateway);
    expect(lines.map((entry) => [entry.storage_day, entry.eur])).toEqual([
      ['2026-03-01', expectedEur(bytes, 23 * HOUR)],
      ['2026-03-02', expectedEur(bytes, DAY)],
      ['2026-03-03', expectedEur(bytes, DAY)],
      ['2026-03-04', expectedEur(bytes, DAY)],
    ]);
    expect(credits(gateway)).toBe(lines.reduce((left, entry) => left.minus(entry.eur), new Decimal(100)).toFixed());

    await gateway.close();
    gateway = await start();
    expect(await storageLines(gateway)).toHaveLength(4);
    await gateway.close();
  });

  it('removes the stores of an account that stays negative past the grace period, with a log line and a usage entry', async () => {
    const time = new ManualTime(START);
    const logs: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = [];
    const logger: Logger = {
      info: (message, fields) => logs.push({ level: 'info', message, fields }),
      warn: (message, fields) => logs.push({ level: 'warn', message, fields }),
      error: (message, fields) => logs.push({ level: 'error', message, fields }),
    };
    // A cent of credit: the first day's storage takes both accounts below zero.
    const test = await startTestGateway(billingConfig({ initial_credits: '0.01' }), {}, { clock: time.clock, timers: time.timers, logger });
    cleanups.push(() => test.close());
    await createAccount(test.gateway.app.store, test.config, 'paying');
    const paying = await test.newKey({ name: 'paying', account: 'paying', vault: true });
    // Negative for another reason, with an empty store (nothing to charge): its grace clock never starts.
    await createAccount(test.gateway.app.store, test.config, 'idle');
    const idle = await test.newKey({ name: 'idle', account: 'idle', vault: true });
    await test.gateway.app.store.accounts.update('idle', { credits: '-5' });
    const empty = (await postJson(`${test.url}/v1/vector_stores`, idle, { name: 'empty' })).json;
    const key = await test.newKey({ name: 'kb', vault: true });
    const doomed = await createStoreWithText(test.url, key, 'doomed');
    const kept = await createStoreWithText(test.url, paying, 'kept');
    await test.gateway.app.vectorStores.idle();
    await time.advance(DAY);
    expect(new Decimal(credits(test.gateway)).isNegative()).toBe(true);

    // The paying account tops up within the grace period; the other does not.
    await time.jump(DAY);
    expect(test.gateway.app.vectorStores.repository.store(doomed.id)).toBeDefined();
    await test.gateway.app.store.accounts.update('paying', { credits: '1000' });
    await time.jump(DAY + HOUR);

    expect((await storeObject(test.url, key, doomed.id)).status).toBe(404);
    expect((await storeObject(test.url, paying, kept.id)).status).toBe(200);
    expect((await storeObject(test.url, idle, empty.id)).status).toBe(200);
    const removal = logs.find((line) => line.message.startsWith('vector stores removed'));
    expect(removal).toMatchObject({ level: 'warn', fields: { account: 'default', vector_store_ids: [doomed.id], grace_days: 2 } });
    const removals = (await storageLines(test.gateway)).filter((entry) => entry.endpoint === STORAGE_REMOVAL_ENDPOINT);
    expect(removals).toEqual([expect.objectContaining({ account: 'default', status: 402, error_code: 'BILLING_2003', eur: '0' })]);
  });
});
