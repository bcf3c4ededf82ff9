import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR } from '../../src/store/postgres/migrate.js';
import { chat, cleanupAll, igw, igwJson, makeSandbox, startServer, type Sandbox } from '../helpers/cli.js';
import { TEAM_TEST_DATA_KEY } from '../helpers/data-key-env.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';

interface MigrateReport {
  applied: string[];
  from_data_dir?: {
    data_dir: string;
    copied: { keys: number; accounts: number; request_log_lines: number };
    skipped: { keys: number; accounts: number; request_log_lines: number };
    not_copied: string[];
  };
}

let postgres: TestPostgres;
let sandbox: Sandbox;
let teamConfig: string;
let databaseUrl: string;

beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);
afterAll(async () => {
  await postgres?.stop();
});
beforeEach(async () => {
  sandbox = await makeSandbox();
  databaseUrl = await postgres.createDatabase();
  // The team config lives outside the sandbox's cwd: commands without --config use the data dir.
  teamConfig = path.join(sandbox.root, 'team.json');
  await writeFile(teamConfig, JSON.stringify({ store: { kind: 'postgres', url: '${DATABASE_URL}' } }));
});
afterEach(cleanupAll);

const team = () => ({ env: { DATABASE_URL: databaseUrl } });

describe('igw migrate', () => {
  it('applies the schema once (--json), then reports it up to date', async () => {
    const first = await igwJson<MigrateReport>(sandbox, ['--config', teamConfig, 'migrate', '--json'], team());
    // Every migration file, in order, the first time.
    expect(first.applied).toEqual((await readdir(MIGRATIONS_DIR)).filter((name) => name.endsWith('.sql')).map((name) => name.replace(/\.sql$/, '')).sort());
    const second = await igw(sandbox, ['--config', teamConfig, 'migrate'], team());
    expect([second.exitCode, second.stdout.trim()]).toEqual([0, 'schema: up to date']);
  });

  it('exits 1 with the next step when the config has no PostgreSQL store, or the server is unreachable', async () => {
    const json = await igw(sandbox, ['migrate']);
    expect(json.exitCode).toBe(1);
    expect(json.stderr).toMatch(/needs a PostgreSQL store.*"kind": "postgres"/s);
    const down = await igw(sandbox, ['--config', teamConfig, 'migrate'], { env: { DATABASE_URL: 'postgres://igw@127.0.0.1:9/igw' } });
    expect(down.exitCode).toBe(1);
    expect(down.stderr).toMatch(/cannot use PostgreSQL at postgres:\/\/127\.0\.0\.1:9\/igw.*pg_isready/s);
  });

  it('--from-data-dir copies keys (still valid), accounts with balances and the request log, leaves nothing uncopied, and copies once', async () => {
    const key = await igwJson<{ id: string; key: string }>(sandbox, ['keys', 'create', '--name', 'laptop', '--json']);
    await igwJson(sandbox, ['accounts', 'create', 'acme', '--json']);
    await igwJson(sandbox, ['accounts', 'set', 'acme', '--credits', '12.5', '--json']);
    const local = await startServer(sandbox);
    expect((await chat(local.url, key.key)).status).toBe(200);
    expect((await chat(local.url, key.key)).status).toBe(200);
    expect((await local.stop('SIGTERM')).exitCode).toBe(0);

    const copying = { env: { DATABASE_URL: databaseUrl, IGW_DATA_KEY: TEAM_TEST_DATA_KEY } };
    const report = await igwJson<MigrateReport>(sandbox, ['--config', teamConfig, 'migrate', '--from-data-dir', sandbox.dataDir, '--json'], copying);
    expect(report.applied.length).toBeGreaterThan(0);
    expect(report.from_data_dir).toMatchObject({ copied: { keys: 1, accounts: 2, request_log_lines: 2 }, skipped: { keys: 0, accounts: 0, request_log_lines: 0 } });
    expect(report.from_data_dir!.not_copied).toEqual([]);

    const again = await igw(sandbox, ['--config', teamConfig, 'migrate', '--from-data-dir', sandbox.dataDir], copying);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain('copied from');
    expect(again.stdout).toContain('0 keys, 0 accounts with their balances, 0 request log lines');
    expect(again.stdout).toContain('1 keys, 2 accounts, 2 request log lines');
    expect(again.stdout).not.toContain('not copied');

    // A team instance on another data dir: the copied key works, the balances and the log are there.
    const teamEnv = { env: { DATABASE_URL: databaseUrl, IGW_DATA_DIR: path.join(sandbox.root, 'team-data'), IGW_DATA_KEY: TEAM_TEST_DATA_KEY } };
    const accounts = await igwJson<Array<{ id: string; credits: string }>>(sandbox, ['--config', teamConfig, 'accounts', 'list', '--json'], teamEnv);
    expect(accounts.find((account) => account.id === 'acme')?.credits).toBe('12.5');
    const server = await startServer(sandbox, ['--config', teamConfig], { ...teamEnv, settle: false });
    expect((await chat(server.url, key.key)).status).toBe(200);
    expect((await server.stop('SIGTERM')).exitCode).toBe(0);
    const usage = await igwJson<{ rows: Array<{ group: string; name: string; requests: number }> }>(sandbox, ['--config', teamConfig, 'usage', '--by', 'key', '--json'], teamEnv);
    expect(usage.rows).toEqual([expect.objectContaining({ group: key.id, name: 'laptop', requests: 3 })]);
  }, 120_000);
});
