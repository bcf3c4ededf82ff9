import type pg from 'pg';
import { inTransaction } from './transaction.js';
import { emptySettlement, type SettlementFile, type SettlementState } from '../../billing/settlement-state.js';

/**
 * The storage settlement's state in PostgreSQL (team mode, issue 19 item 4): one row, read and
 * written in one transaction under its row lock (`FOR UPDATE`). Every instance meters the same
 * shared store sizes and settles when a day is complete; the first to take the lock takes the
 * day out of the state, the others find it gone — so a day is charged once across the team.
 */
export function postgresSettlementState(pool: pg.Pool): SettlementState {
  return {
    shared: true,
    update: (change) =>
      inTransaction(pool, async (client) => {
        await client.query('INSERT INTO igw_storage_settlement (id, state) VALUES (1, $1) ON CONFLICT DO NOTHING', [JSON.stringify(emptySettlement())]);
        const { rows } = await client.query<{ state: SettlementFile }>('SELECT state FROM igw_storage_settlement WHERE id = 1 FOR UPDATE');
        const state = rows[0]!.state;
        const result = await change(state);
        await client.query('UPDATE igw_storage_settlement SET state = $1 WHERE id = 1', [JSON.stringify(state)]);
        return result;
      }),
  };
}
