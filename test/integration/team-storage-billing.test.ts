import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/billing/money.js';
import { STORAGE_ENDPOINT } from '../../src/billing/storage-settlement.js';
import { readPostgresRequestLog } from '../../src/store/postgres/request-log.js';
import type { RequestLogEntry } from '../../src/store/request-log.js';
import { postJson, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { ManualTime } from '../helpers/manual-time.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { eventually, teamConfig } from '../helpers/team.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** 01:00 UTC: a store made now holds 23 hours of its first day. */
const START = Date.UTC(2026, 2, 1, 1);
/** Far above the real price, so a store of a few kilobytes costs whole euros a day. */
const PRICE = 1_000_000;
const TEAM_DATA_KEY = '5c'.repeat(32);

/** The charge for `bytes` held for `ms` (no free allowance), as igw rounds it. */
function expectedEur(bytes: number, ms: number): string {
  return new Decimal(bytes).mul(ms).div(1e9).div(DAY).mul(PRICE).toDecimalPlaces(12).toFixed();
}

/**
 * Team mode, storage billing (issue 19 item 4): two gateways on one PostgreSQL, both running the
 * daily settlement on one injected clock, charge each account-day once — not once per instance.
 */
describe('team mode: vector store storage settled once a day across instances', () => {
  let postgres: TestPostgres;
  let databaseUrl: string;
  const time = new ManualTime(START);
  const gateways: TestGateway[] = [];
  const previousKey = process.env['IGW_DATA_KEY'];

  beforeAll(async () => {
    process.env['IGW_DATA_KEY'] = TEAM_DATA_KEY;
    postgres = await startPostgres();
    databaseUrl = await postgres.createDatabase();
    const config = teamConfig(
      {
        billing: { storage_eur_per_gb_day: PRICE, initial_credits: '100', storage_grace_days: 2 },
        plans: { developer: { benefits: ['advanced_models', 'api_usage', 'studio_access'], storage_free_gb: 0 } },
      },
      databaseUrl,
    );
    for (let index = 0; index < 2; index += 1) gateways.push(await startTestGateway(config, {}, { clock: time.clock, timers: time.timers }));
  }, 60_000);
  afterAll(async () => {
    for (const gateway of gateways) await gateway.close();
    await postgres?.stop();
    if (previousKey === undefined) delete process.env['IGW_DATA_KEY'];
    else process.env['IGW_DATA_KEY'] = previousKey;
  });

  async function storageLines(): Promise<RequestLogEntry[]> {
    for (const gateway of gateways) await gateway.gateway.app.store.requestLog.flush();
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return (await readPostgresRequestLog(client, 0)).filter((entry) => entry.kind === 'storage');
    } finally {
      await client.end();
    }
  }

  it('each day is charged once to credits, whichever instance settles it', async () => {
    const [a, b] = gateways as [TestGateway, TestGateway];
    const key = await a.newKey({ name: 'kb', vault: true });
    const store = (await postJson(`${a.url}/v1/vector_stores`, key, { name: 'billed' })).json;
    const text = 'Storage billing meters the processed size of every vector store, once across the team. '.repeat(8);
    expect((await postJson(`${a.url}/v1/vector_stores/${store.id}/sources/text`, key, { name: 'a.txt', text })).status).toBe(200);
    await a.gateway.app.vectorStores.idle();
    // Both instances see the store's processed size (the records are shared).
    const sizeOn = (gateway: TestGateway) => gateway.gateway.app.vectorStores.repository.summary(store.id).usage_bytes;
    await eventually(() => sizeOn(a) > 0 && sizeOn(b) === sizeOn(a), 5000);
    const bytes = sizeOn(a);

    await time.jump(22 * HOUR);
    expect(await storageLines()).toEqual([]);
    // Midnight: both instances settle; the first day (23 hours of the store) is charged once.
    await time.advance(2 * HOUR);
    const eur = expectedEur(bytes, 23 * HOUR);
    const lines = await storageLines();
    expect(lines.map((line) => [line.account, line.endpoint, line.storage_day, line.eur])).toEqual([['default', STORAGE_ENDPOINT, '2026-03-01', eur]]);
    const afterFirst = new Decimal(100).minus(eur).toFixed();
    for (const gateway of [a, b]) await eventually(() => gateway.gateway.app.store.accounts.get('default')!.credits === afterFirst, 2000);

    // The next midnight: one whole day more, once.
    await time.jump(20 * HOUR);
    await time.advance(4 * HOUR);
    expect((await storageLines()).map((line) => [line.storage_day, line.eur])).toEqual([
      ['2026-03-01', eur],
      ['2026-03-02', expectedEur(bytes, DAY)],
    ]);
    const afterSecond = new Decimal(afterFirst).minus(expectedEur(bytes, DAY)).toFixed();
    for (const gateway of [a, b]) await eventually(() => gateway.gateway.app.store.accounts.get('default')!.credits === afterSecond, 2000);
  }, 60_000);
});
