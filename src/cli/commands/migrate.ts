import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { copyDataDir, type DataDirCopy } from '../../store/postgres/copy-data-dir.js';
import { migrateDatabase } from '../../store/postgres/migrate.js';
import { NOT_SHARED_YET } from '../../store/postgres/postgres-store.js';
import { DataDirLockedError } from '../../store/lock.js';
import { loadCliConfig, type GlobalOptions } from '../global-options.js';
import { printJson, printResult } from '../output.js';
import { UserError } from '../user-error.js';

/** node-postgres errors that are the setup's, not igw's: no server, unknown database, refused login. */
function unreachable(error: unknown, url: string): UserError | null {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') return null;
  const where = url.replace(/\/\/[^@/]*@/, '//');
  return new UserError(`cannot use PostgreSQL at ${where}: ${(error as Error).message}`, 'check store.url in the config and that the server runs (pg_isready; createdb NAME creates the database)');
}

function describeCopy(copy: DataDirCopy): string {
  const { copied, skipped } = copy;
  return [
    `copied from ${copy.data_dir}: ${copied.keys} keys, ${copied.accounts} accounts with their balances, ${copied.request_log_lines} request log lines, ${copied.batches} batches (${copied.batch_rows} rows of batches still running), ${copied.vector_stores} vector stores (${copied.vector_store_files} files, ${copied.vector_store_chunks} chunks)`,
    `already in the database (kept as they are): ${skipped.keys} keys, ${skipped.accounts} accounts, ${skipped.request_log_lines} request log lines, ${skipped.batches} batches, ${skipped.vector_stores} vector stores`,
    `not copied by this version (they stay in the data dir): ${copy.not_copied.join(', ')}`,
  ].join('\n');
}

export function registerMigrate(program: Command, globals: () => GlobalOptions): void {
  program
    .command('migrate')
    .description('team mode: bring the PostgreSQL schema up to date (igw serve also does at start), and copy a local data dir into it')
    .option('--from-data-dir <dir>', `copy keys (hashed), accounts with balances and the request log of a local data dir; not yet: ${[...NOT_SHARED_YET, 'files', 'vault'].join(', ')}`)
    .option('--json', 'print {applied, from_data_dir?}: the migrations applied now; what was copied, skipped and not copied')
    .addHelpText(
      'after',
      '\nNeeds "store": {"kind": "postgres", "url": "${DATABASE_URL}"} in the config (README "Team mode").\n\nExamples:\n  DATABASE_URL=postgres://igw@127.0.0.1/igw igw migrate\n  igw migrate --from-data-dir ~/.local/share/igw --json',
    )
    .action(async (options: { fromDataDir?: string; json?: boolean }) => {
      const config = await loadCliConfig(globals());
      if (config.store.kind !== 'postgres') {
        throw new UserError('igw migrate needs a PostgreSQL store, and the config has the JSON data dir', 'add "store": {"kind": "postgres", "url": "${DATABASE_URL}"} to the config (README "Team mode")');
      }
      const url = config.store.url;
      let source: string | undefined;
      if (options.fromDataDir !== undefined) {
        source = path.resolve(options.fromDataDir);
        const found = await stat(source).catch(() => null);
        if (found === null || !found.isDirectory()) throw new UserError(`no data dir at ${source}`, 'give the folder igw serve used (its --data-dir, IGW_DATA_DIR, or ~/.local/share/igw)');
      }
      let applied: string[];
      let copy: DataDirCopy | undefined;
      try {
        applied = (await migrateDatabase(url)).applied;
        if (source !== undefined) copy = await copyDataDir(source, url);
      } catch (error) {
        if (error instanceof DataDirLockedError) throw new UserError(`${source ?? 'the data dir'} is in use by ${error.owner.purpose} (pid ${error.owner.pid})`, 'stop that server first, so the copy is complete');
        throw unreachable(error, url) ?? error;
      }
      if (options.json === true) return printJson({ applied, ...(copy === undefined ? {} : { from_data_dir: copy }) });
      const lines = [applied.length === 0 ? 'schema: up to date' : `schema: applied ${applied.join(', ')}`];
      if (copy !== undefined) lines.push(describeCopy(copy));
      printResult(lines.join('\n'));
    });
}
