import type pg from 'pg';

/**
 * Runs `work` on one pooled connection inside BEGIN … COMMIT; an error rolls back and is thrown.
 * `commit(result)` false rolls back too (a conditional step found its condition gone) and the
 * result is returned as is.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>, commit: (result: T) => boolean = () => true): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query(commit(result) ? 'COMMIT' : 'ROLLBACK');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
