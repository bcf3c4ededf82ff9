import { readdirSync, readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

/**
 * The team-mode data key for the postgres project (DESIGN §4: every instance of a team seals with
 * the same key, given in IGW_DATA_KEY). A fixed test value, 32 bytes as hex: no scrypt per start.
 */
const MATRIX_DATA_KEY = '6d61747269782d746573742d646174612d6b65792d6e6f742d612d7365637265';

/**
 * The test matrix (issue 19 "Done when": the suite passes with the JSON store and, for every
 * store-touching test, with the PostgreSQL store — the same files, not copies). `npm test` runs
 * both projects; `--project json` or `--project postgres` runs one.
 *
 * postgres: every file that starts a gateway through startTestGateway (test/helpers/gateway.ts),
 * which then puts `store: {kind: postgres}` on a fresh database of one real PostgreSQL started for
 * the run (test/helpers/store-matrix-setup.ts). Left out, and why:
 * - test/unit/** except the one that starts a gateway, test/architecture/**: no store.
 * - files that start their own PostgreSQL (startPostgres: team-*.test.ts, pg-*.test.ts…): they run
 *   on it already, named store and all; the json project runs them once.
 * - test/integration/batch-runner.test.ts, storage-billing.test.ts: they call startGateway on a
 *   data dir of their own and assert on the JSON store's files (the batch results log, the
 *   storage journal); their team-mode counterparts are team-batch*.test.ts and
 *   team-storage-billing.test.ts, which run on a PostgreSQL of their own.
 * - test/cli/** but keys, keys-rotate, accounts and usage: those four run in both (their sandbox's
 *   user config names the store); the others write config files of their own, assert on config
 *   discovery or data-dir files, or spawn servers whose store the file itself names (migrate,
 *   team-*), and each CLI process opening PostgreSQL costs CI time for no store code of its own.
 */
const POSTGRES_FILES = [
  'test/integration/**/*.test.ts',
  'test/conformance/**/*.test.ts',
  'test/fuzz/**/*.test.ts',
  'test/unit/providers/openai-quirks.test.ts',
  // CLI files about keys, accounts and usage: their sandbox's user config names the store (test/helpers/cli.ts).
  'test/cli/{keys,keys-rotate,accounts,usage}.test.ts',
];
const TESTS = new URL('./test/', import.meta.url);
const STARTS_ITS_OWN_POSTGRES = readdirSync(TESTS, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts') && readFileSync(new URL(file, TESTS), 'utf8').includes('startPostgres('))
  .map((file) => `test/${file}`);
const POSTGRES_LEFT_OUT = [...STARTS_ITS_OWN_POSTGRES, 'test/integration/batch-runner.test.ts', 'test/integration/storage-billing.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 20000,
    hookTimeout: 20000,
    pool: 'forks',
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    projects: [
      { extends: true, test: { name: 'json', include: ['test/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: POSTGRES_FILES,
          exclude: POSTGRES_LEFT_OUT,
          globalSetup: ['./test/helpers/store-matrix-setup.ts'],
          env: { IGW_TEST_STORE: 'postgres', IGW_DATA_KEY: MATRIX_DATA_KEY },
        },
      },
    ],
  },
});
