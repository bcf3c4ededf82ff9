import { inject } from 'vitest';
import { adminQuery, databaseUrl, MATRIX_TEMPLATE } from './postgres.js';

/**
 * Which store this test file runs with: the test matrix (vitest.config.ts, issue 19 "Done when")
 * runs the store-touching files twice, project `json` (the data dir, the default) and project
 * `postgres` (IGW_TEST_STORE=postgres: team mode on a real PostgreSQL started once per run by
 * store-matrix-setup.ts, IGW_DATA_KEY set as team mode requires).
 */
export const MATRIX_STORE: 'json' | 'postgres' = process.env['IGW_TEST_STORE'] === 'postgres' ? 'postgres' : 'json';

export interface MatrixStore {
  /** The raw config to start with: as given, or with `store` on a new database. */
  rawConfig: unknown;
  /** Drops that database (after the gateway closed); nothing in the json project. */
  release(): Promise<void>;
}

let databases = 0;

/**
 * Puts this matrix cell's store into a test gateway's raw config: in the postgres project a new
 * database (a copy of the migrated template) per gateway, so tests stay as independent as their
 * temp data dirs keep them. A config that names its own store (the team-*.test.ts files) is left
 * as it is.
 */
export async function matrixStore(rawConfig: unknown): Promise<MatrixStore> {
  const config = (rawConfig ?? {}) as Record<string, unknown>;
  if (MATRIX_STORE === 'json' || 'store' in config) return { rawConfig, release: async () => undefined };
  const adminUrl = inject('matrixPostgresAdminUrl');
  const name = `igw_matrix_${process.pid}_${++databases}`;
  await adminQuery(adminUrl, `CREATE DATABASE "${name}" TEMPLATE "${MATRIX_TEMPLATE}"`);
  return {
    rawConfig: { ...config, store: { kind: 'postgres', url: databaseUrl(adminUrl, name) } },
    release: () => adminQuery(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}
