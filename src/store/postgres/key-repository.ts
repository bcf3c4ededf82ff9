import type pg from 'pg';
import type { KeyRecord } from '../keys.js';
import type { KeyRepositoryPort } from '../repositories.js';
import type { ChangeFeed } from './change-feed.js';

export const KEY_COLUMNS = ['id', 'name', 'hash', 'display', 'scopes', 'vault_access', 'account', 'created_at', 'expires_at', 'revoked_at', 'owner'] as const;

interface KeyRow {
  id: string;
  name: string;
  hash: string;
  display: string;
  scopes: string[];
  vault_access: boolean;
  account: string;
  created_at: string | number;
  expires_at: string | number | null;
  revoked_at: string | number | null;
  owner: string | null;
}

function toRecord(row: KeyRow): KeyRecord {
  const seconds = (value: string | number | null) => (value === null ? null : Number(value));
  return {
    id: row.id,
    name: row.name,
    hash: row.hash,
    display: row.display,
    scopes: row.scopes,
    vault_access: row.vault_access,
    account: row.account,
    created_at: Number(row.created_at),
    expires_at: seconds(row.expires_at),
    revoked_at: seconds(row.revoked_at),
    ...(row.owner === 'cli' ? { owner: 'cli' as const } : {}),
  };
}

export function keyValues(record: KeyRecord): unknown[] {
  return [record.id, record.name, record.hash, record.display, JSON.stringify(record.scopes), record.vault_access, record.account, record.created_at, record.expires_at, record.revoked_at, record.owner ?? null];
}

/**
 * Keys in PostgreSQL (team mode). Authentication looks keys up on every request, synchronously:
 * it reads this instance's cache, loaded at start and kept current by the `igw_keys` change feed,
 * so a key created or revoked on any instance is seen here within milliseconds.
 */
export class PostgresKeyRepository implements KeyRepositoryPort {
  private byHash = new Map<string, KeyRecord>();
  private byId = new Map<string, KeyRecord>();

  private constructor(private readonly pool: pg.Pool) {}

  static async open(pool: pg.Pool, feed: ChangeFeed): Promise<PostgresKeyRepository> {
    const repository = new PostgresKeyRepository(pool);
    feed.subscribe('igw_keys', { change: (payload) => repository.cache(toRecord(JSON.parse(payload) as KeyRow)), resync: () => repository.load() });
    return repository;
  }

  async load(): Promise<void> {
    const { rows } = await this.pool.query<KeyRow>(`SELECT ${KEY_COLUMNS.join(', ')} FROM igw_keys ORDER BY created_at, id`);
    const records = rows.map(toRecord);
    this.byHash = new Map(records.map((record) => [record.hash, record]));
    this.byId = new Map(records.map((record) => [record.id, record]));
  }

  private cache(record: KeyRecord): void {
    const previous = this.byId.get(record.id);
    if (previous !== undefined && previous.hash !== record.hash) this.byHash.delete(previous.hash);
    this.byId.set(record.id, record);
    this.byHash.set(record.hash, record);
  }

  findByHash(hash: string): KeyRecord | undefined {
    return this.byHash.get(hash);
  }

  get(id: string): KeyRecord | undefined {
    return this.byId.get(id);
  }

  list(): KeyRecord[] {
    return [...this.byId.values()];
  }

  async insert(record: KeyRecord): Promise<void> {
    const placeholders = KEY_COLUMNS.map((_, index) => `$${index + 1}`).join(', ');
    await this.pool.query(`INSERT INTO igw_keys (${KEY_COLUMNS.join(', ')}) VALUES (${placeholders})`, keyValues(record));
    this.cache({ ...record });
  }

  /** Sets only the changed columns: two admins changing different fields on two instances do not undo each other. */
  async update(id: string, change: Partial<KeyRecord>): Promise<KeyRecord | undefined> {
    const full = keyValues({ ...(this.byId.get(id) ?? ({} as KeyRecord)), ...change, id } as KeyRecord);
    const changed = KEY_COLUMNS.map((column, index) => ({ column, value: full[index] })).filter(({ column }) => column !== 'id' && column in change);
    const assignments = changed.map(({ column }, index) => `${column} = $${index + 2}`);
    const sql =
      assignments.length === 0
        ? `SELECT ${KEY_COLUMNS.join(', ')} FROM igw_keys WHERE id = $1`
        : `UPDATE igw_keys SET ${assignments.join(', ')} WHERE id = $1 RETURNING ${KEY_COLUMNS.join(', ')}`;
    const { rows } = await this.pool.query<KeyRow>(sql, [id, ...changed.map(({ value }) => value)]);
    if (rows[0] === undefined) return undefined;
    const record = toRecord(rows[0]);
    this.cache(record);
    return record;
  }
}
