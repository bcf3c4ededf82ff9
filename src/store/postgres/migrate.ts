import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';
import pg from 'pg';

/**
 * The migration files. They stay beside this module in src/ (tsc copies no .sql, and the top level
 * of the repo is fixed); from dist/ the same relative path leads back to them (same depth), so
 * the checkout and an installed package (package.json `files`) both find them.
 */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../../src/store/postgres/migrations', import.meta.url));

/**
 * igw's own advisory lock key for migrations. node-pg-migrate's built-in lock is a *try* lock
 * (a second instance starting at the same moment would fail with "Another migration is already
 * running"); this one waits, so two `igw serve` started together both start, one of them migrates.
 */
const MIGRATION_LOCK_KEY = 0x16_77_00_19;

export interface MigrationResult {
  /** Names of the migrations this run applied (empty when the schema was current). */
  applied: string[];
}

/** Applies every pending migration under the advisory lock (issue 19 item 3). */
export async function migrateDatabase(url: string): Promise<MigrationResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      const applied = await runner({
        dbClient: client,
        dir: MIGRATIONS_DIR,
        direction: 'up',
        migrationsTable: 'igw_migrations',
        noLock: true,
        singleTransaction: true,
        checkOrder: true,
        log: () => undefined,
      });
      return { applied: applied.map((migration) => migration.name) };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await client.end();
  }
}
