import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway } from '../../src/app/gateway.js';
import { buildConfig } from '../../src/config/load.js';
import { DataKeyError } from '../../src/crypto/data-key.js';
import { silentLogger } from '../../src/util/logger.js';
import { TEAM_TEST_DATA_KEY } from '../helpers/data-key-env.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { teamConfig } from '../helpers/team.js';

const OTHER_KEY = 'aa'.repeat(32);

/** Team mode needs one data key on every instance (issue 19; DESIGN §4 "Team mode"). */
describe('team mode: the team data key', () => {
  let postgres: TestPostgres;
  let url: string;
  const dirs: string[] = [];

  async function start(env: NodeJS.ProcessEnv) {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'igw-team-key-'));
    dirs.push(dataDir);
    return startGateway({ dataDir, config: buildConfig(teamConfig({}, url), null, {}), port: 0, host: '127.0.0.1', logger: silentLogger, env });
  }

  beforeAll(async () => {
    postgres = await startPostgres();
    url = await postgres.createDatabase();
  }, 60_000);
  afterAll(async () => {
    await postgres?.stop();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('refuses to start without IGW_DATA_KEY, saying what to set', async () => {
    const refused = await start({}).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(DataKeyError);
    expect((refused as DataKeyError).message).toMatch(/team mode .* needs IGW_DATA_KEY/);
    expect((refused as DataKeyError).nextStep).toMatch(/same value on every instance/);
  });

  it('instances with the same key start; one with another key is refused at start, and the team key stays', async () => {
    const a = await start({ IGW_DATA_KEY: TEAM_TEST_DATA_KEY });
    const b = await start({ IGW_DATA_KEY: TEAM_TEST_DATA_KEY });
    const refused = await start({ IGW_DATA_KEY: OTHER_KEY }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(DataKeyError);
    expect((refused as DataKeyError).message).toMatch(/IGW_DATA_KEY is not the key this team's database was first used with/);
    expect((refused as DataKeyError).nextStep).toMatch(/the value the other instances use/);
    // A passphrase giving another key is refused the same way; the team's key still starts.
    await expect(start({ IGW_DATA_KEY: 'a different passphrase' })).rejects.toThrow(DataKeyError);
    const c = await start({ IGW_DATA_KEY: TEAM_TEST_DATA_KEY });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    expect((await client.query('SELECT count(*)::int AS n FROM igw_data_key_check')).rows[0].n).toBe(1);
    await client.end();
    await Promise.all([a.close(), b.close(), c.close()]);
  }, 60_000);
});
