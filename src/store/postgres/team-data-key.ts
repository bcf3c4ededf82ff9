import type pg from 'pg';
import { DATA_KEY_ENV, DataKeyError, opensKeyCheck, sealKeyCheck } from '../../crypto/data-key.js';

/**
 * Team mode: the first instance on a database seals a check value under its data key; every later
 * start opens it, so an instance with another IGW_DATA_KEY refuses at once, with the fix, instead
 * of failing later on every file or vault read (issue 19; DESIGN §4 "Team mode"). `igw migrate
 * --from-data-dir` checks it too (on its transaction's client), before it seals anything.
 */
export async function checkTeamDataKey(pool: pg.Pool | pg.ClientBase, key: Buffer): Promise<void> {
  await pool.query('INSERT INTO igw_data_key_check (sealed) VALUES ($1) ON CONFLICT (singleton) DO NOTHING', [sealKeyCheck(key)]);
  const { rows } = await pool.query<{ sealed: Buffer }>('SELECT sealed FROM igw_data_key_check');
  if (opensKeyCheck(key, rows[0]!.sealed)) return;
  throw new DataKeyError(
    `${DATA_KEY_ENV} is not the key this team's database was first used with: what the other instances stored could not be read here`,
    `set ${DATA_KEY_ENV} to the value the other instances use`,
  );
}
