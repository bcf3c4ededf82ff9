import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toDecimal } from '../../src/billing/money.js';
import { PostgresAccountRepository } from '../../src/store/postgres/account-repository.js';
import { ChangeFeed } from '../../src/store/postgres/change-feed.js';
import { migrateDatabase } from '../../src/store/postgres/migrate.js';
import { silentLogger } from '../../src/util/logger.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { eventually } from '../helpers/team.js';

interface Instance {
  pool: pg.Pool;
  feed: ChangeFeed;
  accounts: PostgresAccountRepository;
}

async function instance(url: string): Promise<Instance> {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const feed = new ChangeFeed(url, silentLogger);
  const accounts = await PostgresAccountRepository.open(pool, feed);
  await feed.start();
  await accounts.load();
  return { pool, feed, accounts };
}

async function row(pool: pg.Pool, id: string): Promise<{ energy: string | null; version: number }> {
  const { rows } = await pool.query<{ energy: string | null; version: string }>('SELECT energy::text AS energy, version FROM igw_accounts WHERE id = $1', [id]);
  return { energy: rows[0]!.energy, version: Number(rows[0]!.version) };
}

/**
 * Debits in team mode (DESIGN §2, issue 19): applied to the instance's cache at once, written to
 * PostgreSQL coalesced (one UPDATE in flight per balance, the rest go together), never lost.
 */
describe('team mode: coalesced debits on one PostgreSQL', () => {
  let postgres: TestPostgres;
  let a: Instance;
  let b: Instance;

  beforeAll(async () => {
    postgres = await startPostgres();
    const url = await postgres.createDatabase();
    await migrateDatabase(url);
    a = await instance(url);
    b = await instance(url);
  }, 60_000);
  afterAll(async () => {
    for (const side of [a, b]) {
      await side?.feed.close();
      await side?.pool.end();
    }
    await postgres?.stop();
  });

  it('200 debits fired together on two instances: every one lands, in far fewer row updates, and both caches agree', async () => {
    await a.accounts.insert({ id: 'busy', plan: 'free', energy: '100', credits: '0', created_at: 1 });
    await eventually(() => b.accounts.get('busy')?.energy === '100');
    const before = await row(a.pool, 'busy');
    const debits: Promise<void>[] = [];
    for (let index = 0; index < 100; index += 1) {
      debits.push(a.accounts.debit('busy', 'energy', '0.013'));
      debits.push(b.accounts.debit('busy', 'energy', '0.007'));
    }
    // The cache of each instance shows its own debits at once (the next preflight there sees them).
    expect(toDecimal(a.accounts.get('busy')!.energy as string).lessThanOrEqualTo('98.7')).toBe(true);
    await Promise.all(debits);
    await Promise.all([a.accounts.flush(), b.accounts.flush()]);
    const after = await row(a.pool, 'busy');
    expect(after.energy).not.toBeNull();
    expect(toDecimal(after.energy!).toFixed()).toBe('98');
    // Coalesced: fewer UPDATEs than debits (each UPDATE raises the version once).
    expect(after.version - before.version).toBeLessThan(200);
    await eventually(() => a.accounts.get('busy')?.energy === '98' && b.accounts.get('busy')?.energy === '98', 2000);
  });

  it('debits of an unlimited balance write nothing: the row does not change', async () => {
    await a.accounts.insert({ id: 'open', plan: 'free', energy: 'unlimited', credits: '0', created_at: 2 });
    const before = await row(a.pool, 'open');
    await Promise.all(Array.from({ length: 20 }, () => a.accounts.debit('open', 'energy', '0.5')));
    await a.accounts.flush();
    expect(await row(a.pool, 'open')).toEqual(before);
    expect(a.accounts.get('open')?.energy).toBe('unlimited');
  });

  it('a failed write reaches every debit that went with it, and later debits still land', async () => {
    await a.accounts.insert({ id: 'tight', plan: 'free', energy: '1', credits: '0', created_at: 3 });
    // numeric overflow: the database refuses this amount; the caller hears of it (Ledger logs it).
    await expect(a.accounts.debit('tight', 'energy', '1e131073')).rejects.toThrow();
    await a.accounts.flush();
    await a.accounts.debit('tight', 'energy', '0.25');
    expect(toDecimal((await row(a.pool, 'tight')).energy!).toFixed()).toBe('0.75');
  });
});
