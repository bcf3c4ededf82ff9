import type { TestProject } from 'vitest/node';
import { migrateDatabase } from '../../src/store/postgres/migrate.js';
import { databaseUrl, MATRIX_TEMPLATE, startPostgres } from './postgres.js';

/**
 * globalSetup of the test matrix's `postgres` project (vitest.config.ts): ONE real PostgreSQL
 * for the whole run (initdb + pg_ctl in a temp dir, test/helpers/postgres.ts), and a template
 * database migrated once, so each test gateway gets a fresh database as a cheap copy of it
 * (CREATE DATABASE … TEMPLATE) instead of an initdb or a migration run of its own. The server
 * is stopped (and its folder removed) when the run ends.
 */
declare module 'vitest' {
  export interface ProvidedContext {
    /** The matrix server's `postgres` database URL (for CREATE/DROP DATABASE). */
    matrixPostgresAdminUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const postgres = await startPostgres();
  try {
    await postgres.createDatabase(MATRIX_TEMPLATE);
    await migrateDatabase(databaseUrl(postgres.adminUrl, MATRIX_TEMPLATE));
  } catch (error) {
    await postgres.stop();
    throw error;
  }
  project.provide('matrixPostgresAdminUrl', postgres.adminUrl);
  return () => postgres.stop();
}
