import pg from 'pg';
import type { RequestLogEntry } from '../request-log.js';
import { readPostgresKeyNames, readPostgresRequestLog } from './request-log.js';

/** `igw usage` in team mode: the shared request log since `since` (ms), and key names when grouping by key. */
export async function readTeamUsage(url: string, since: number, withKeyNames: boolean): Promise<{ entries: RequestLogEntry[]; keyNames?: Map<string, string> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const entries = await readPostgresRequestLog(client, since);
    return withKeyNames ? { entries, keyNames: await readPostgresKeyNames(client) } : { entries };
  } finally {
    await client.end();
  }
}
