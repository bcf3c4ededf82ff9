import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Collection } from './collection.js';
import { DocumentCollection } from './document-collection.js';

/** A stored API key: only its SHA-256 and a display prefix are kept (DESIGN §4). */
export interface KeyRecord {
  id: string;
  name: string;
  hash: string;
  /** `sk-svc-` + first 4 + `…` + last 4: enough to recognise, useless to attack. */
  display: string;
  scopes: string[];
  vault_access: boolean;
  account: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  /** `cli`: the local CLI's own key (DESIGN §1), kept in <data dir>/cli.key; absent on every other key. */
  owner?: 'cli';
}

interface KeysDocument {
  keys: KeyRecord[];
}

/**
 * Key names by id, read from keys.json without taking the data-dir lock (read-only, and the file
 * is replaced atomically): `igw usage --by key` shows names, whether or not a server runs.
 */
export async function readKeyNames(dataDir: string): Promise<Map<string, string>> {
  try {
    const document = JSON.parse(await readFile(path.join(dataDir, 'keys.json'), 'utf8')) as Partial<KeysDocument>;
    return new Map((document.keys ?? []).map((record) => [record.id, record.name]));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw error;
  }
}

/** Typed repository over keys.json, with an in-memory hash index for the hot path. */
export class KeyRepository {
  private byHash = new Map<string, KeyRecord>();
  private byId = new Map<string, KeyRecord>();

  private constructor(private readonly records: Collection<KeyRecord>) {
    this.reindex();
  }

  static async open(dataDir: string): Promise<KeyRepository> {
    return new KeyRepository(await DocumentCollection.open<KeyRecord>(dataDir, 'keys', { key: (record) => record.id, field: 'keys' }));
  }

  private reindex(): void {
    this.byHash = new Map([...this.records.values()].map((record) => [record.hash, record]));
    this.byId = new Map([...this.records.values()].map((record) => [record.id, record]));
  }

  findByHash(hash: string): KeyRecord | undefined {
    return this.byHash.get(hash);
  }

  get(id: string): KeyRecord | undefined {
    return this.byId.get(id);
  }

  list(): KeyRecord[] {
    return [...this.records.values()];
  }

  async insert(record: KeyRecord): Promise<void> {
    this.byHash.set(record.hash, record);
    this.byId.set(record.id, record);
    await this.records.put(record);
  }

  async update(id: string, change: Partial<KeyRecord>): Promise<KeyRecord | undefined> {
    const record = this.get(id);
    if (record === undefined) return undefined;
    Object.assign(record, change);
    this.reindex();
    await this.records.put(record);
    return record;
  }
}
