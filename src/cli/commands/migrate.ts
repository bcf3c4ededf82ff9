import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { DataKeyError, teamDataKey } from '../../crypto/data-key.js';
import type { DataDirCopy } from '../../store/postgres/copy-data-dir.js';
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
  const lines = [
    `copied from ${copy.data_dir}: ${copied.keys} keys, ${copied.accounts} accounts with their balances, ${copied.request_log_lines} request log lines, ${copied.files} files (${copied.file_bytes} bytes), ${copied.vaults} vaults (${copied.vault_items} blueprints and skills), ${copied.batches} batches (${copied.batch_rows} rows of batches still running), ${copied.vector_stores} vector stores (${copied.vector_store_files} files, ${copied.vector_store_chunks} chunks)`,
    `already in the database (kept as they are): ${skipped.keys} keys, ${skipped.accounts} accounts, ${skipped.request_log_lines} request log lines, ${skipped.files} files, ${skipped.vaults} vaults, ${skipped.batches} batches, ${skipped.vector_stores} vector stores`,
  ];
  return lines.join('\n');
}

export function registerMigrate(program: Command, globals: () => GlobalOptions): void {
  program
    .command('migrate')
    .description('team mode: bring the PostgreSQL schema up to date (igw serve also does at start), and copy a local data dir into it')
    .option(
      '--from-data-dir <dir>',
      'copy a local data dir: keys (hashed), accounts with balances, the request log, files, vaults (blueprints, skills), batches and vector stores; what is sealed under the data dir\'s key is sealed again under the team\'s IGW_DATA_KEY (needed)',
    )
    .option('--from-data-key-env <name>', 'the variable holding the data key the data dir was started with, when that was not the team\'s IGW_DATA_KEY (default: its vault.key, else IGW_DATA_KEY)')
    .option('--json', 'print {applied, from_data_dir?}: the migrations applied now; what was copied, skipped and not copied (counts per part)')
    .addHelpText(
      'after',
      '\nNeeds "store": {"kind": "postgres", "url": "${DATABASE_URL}"} in the config (README "Team mode").\n\nRecords already in the database are kept; running it again copies nothing twice.\n\nExamples:\n  DATABASE_URL=postgres://igw@127.0.0.1/igw igw migrate\n  IGW_DATA_KEY=<team key> igw migrate --from-data-dir ~/.local/share/igw --json\n  OLD_KEY=<its key> IGW_DATA_KEY=<team key> igw migrate --from-data-dir ./data --from-data-key-env OLD_KEY',
    )
    .action(async (options: { fromDataDir?: string; fromDataKeyEnv?: string; json?: boolean }) => {
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
        // Loaded here, not with the CLI: node-postgres and the migration tool are this command's alone.
        const [{ copyDataDir }, { sourceDataKey }, { migrateDatabase }] = await Promise.all([
          import('../../store/postgres/copy-data-dir.js'),
          import('../../store/postgres/copy-source-key.js'),
          import('../../store/postgres/migrate.js'),
        ]);
        // Keys first: a missing or wrong key is said before the database is touched.
        const keys = source === undefined ? undefined : { team: await teamDataKey(process.env), source: await sourceDataKey(source, process.env, options.fromDataKeyEnv) };
        applied = (await migrateDatabase(url)).applied;
        if (source !== undefined && keys !== undefined) copy = await copyDataDir(source, url, keys);
      } catch (error) {
        if (error instanceof DataKeyError) throw new UserError(error.message, error.nextStep);
        if (error instanceof DataDirLockedError) throw new UserError(`${source ?? 'the data dir'} is in use by ${error.owner.purpose} (pid ${error.owner.pid})`, 'stop that server first, so the copy is complete');
        throw unreachable(error, url) ?? error;
      }
      if (options.json === true) return printJson({ applied, ...(copy === undefined ? {} : { from_data_dir: copy }) });
      const lines = [applied.length === 0 ? 'schema: up to date' : `schema: applied ${applied.join(', ')}`];
      if (copy !== undefined) lines.push(describeCopy(copy));
      printResult(lines.join('\n'));
    });
}
