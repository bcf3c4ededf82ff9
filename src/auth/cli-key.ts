import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createKey } from '../admin/keys-admin.js';
import type { Config } from '../config/load.js';
import type { Store } from '../store/store.js';
import { writeFileAtomic } from '../store/atomic-write.js';
import { hashApiKey, isWellFormedKey } from './keys.js';

/**
 * The local CLI credential (DESIGN §1): on the machine that owns the data dir, client commands
 * (`models`, `batch`, `kb`) need no --api-key. The CLI's own key is issued through the admin
 * socket of the running server (or, with none, directly under the data-dir lock), kept only in
 * `<data dir>/cli.key` (mode 0600), never printed, listed by `keys list` as the CLI's and
 * revocable like any other key.
 */
export const CLI_KEY_FILE = 'cli.key';
export const CLI_KEY_NAME = 'igw CLI';

export interface CliKey {
  id: string;
  key: string;
}

/** What `keys.cli` answers: the key to use, and whether it is a new one. */
export interface IssuedCliKey extends CliKey {
  /**
   * false: the key the caller reported as refused is valid in this data dir, so the gateway that
   * refused it runs on another data dir (a new key would be refused too).
   */
  fresh: boolean;
}

export function cliKeyPath(dataDir: string): string {
  return path.join(dataDir, CLI_KEY_FILE);
}

/** The stored CLI key, or null when there is none (or it is unreadable: a new one replaces it). */
export async function readCliKey(dataDir: string): Promise<CliKey | null> {
  let text: string;
  try {
    text = await readFile(cliKeyPath(dataDir), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<CliKey>;
    return typeof parsed.id === 'string' && typeof parsed.key === 'string' && isWellFormedKey(parsed.key) ? { id: parsed.id, key: parsed.key } : null;
  } catch {
    return null;
  }
}

/** writeFileAtomic (0600, temp + fsync + rename): a crash never leaves half a key, and no other user can read it. */
async function writeCliKey(dataDir: string, value: CliKey): Promise<void> {
  await writeFileAtomic(cliKeyPath(dataDir), `${JSON.stringify(value)}\n`, `${process.pid}.${Date.now()}.tmp`);
}

function usable(store: Store, key: string, nowSeconds: number): boolean {
  const record = store.keys.findByHash(hashApiKey(key));
  return record !== undefined && record.owner === 'cli' && record.revoked_at === null && (record.expires_at === null || record.expires_at > nowSeconds);
}

/** One issue at a time per data dir: two commands started together must end up with one key. */
const issuing = new Map<string, Promise<unknown>>();

/**
 * The CLI's key: the stored one while it is valid, else a new one (full access and vault access,
 * account `default`), which replaces the file and revokes earlier CLI keys. `rejected` is the key
 * a gateway just refused (401).
 */
export async function issueCliKey(store: Store, config: Config, args: { rejected?: string }, nowSeconds = Math.floor(Date.now() / 1000)): Promise<IssuedCliKey> {
  const previous = issuing.get(store.dataDir) ?? Promise.resolve();
  const run = previous.then(async (): Promise<IssuedCliKey> => {
    const stored = await readCliKey(store.dataDir);
    if (stored !== null && usable(store, stored.key, nowSeconds)) return { ...stored, fresh: stored.key !== args.rejected };
    for (const record of store.keys.list()) {
      // Team mode: every instance's data dir has its own CLI key in the shared table; only this dir's earlier one goes.
      const ours = store.kind === 'json' || record.id === stored?.id;
      if (record.owner === 'cli' && record.revoked_at === null && ours) await store.keys.update(record.id, { revoked_at: nowSeconds });
    }
    const created = await createKey(store, config, { name: CLI_KEY_NAME, vault: true }, nowSeconds, 'cli');
    await writeCliKey(store.dataDir, { id: created.id, key: created.key });
    return { id: created.id, key: created.key, fresh: true };
  });
  const settled = run.catch(() => undefined);
  issuing.set(store.dataDir, settled);
  void settled.then(() => {
    if (issuing.get(store.dataDir) === settled) issuing.delete(store.dataDir);
  });
  return run;
}
