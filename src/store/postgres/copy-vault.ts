import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import type { VaultRecord } from '../../vault/team-vault-files.js';
import type { VaultDocument } from '../../vault/vault.js';
import { insertRecord } from './copy-records.js';

export interface VaultCopy {
  copied: { vaults: number; vault_items: number };
  /** Accounts whose vault is already in the database, kept as it is. */
  skipped: { vaults: number };
}

/**
 * `igw migrate --from-data-dir` for the vault (issue 19 item 3), inside the copy's transaction:
 * each account's document (`vault/<hex account>.json`, vault.ts) becomes the account's record of
 * the team's `vault` collection (team-vault-files.ts). It is copied as it is: every item and the
 * check record are sealed under a key derived from the account's own vault key (vault.ts), never
 * under the data key, so nothing in it needs the team key and igw could not re-seal it anyway
 * (it never stores vault keys); the same vault key opens it in team mode.
 */
export async function copyVault(client: pg.ClientBase, dataDir: string): Promise<VaultCopy> {
  const copy: VaultCopy = { copied: { vaults: 0, vault_items: 0 }, skipped: { vaults: 0 } };
  const folder = path.join(dataDir, 'vault');
  const names = await readdir(folder).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  for (const name of names.filter((entry) => entry.endsWith('.json')).sort()) {
    const document = JSON.parse(await readFile(path.join(folder, name), 'utf8')) as VaultDocument | null;
    // A vault emptied of its document (written as null) is no vault.
    if (document === null) continue;
    const account = Buffer.from(name.slice(0, -'.json'.length), 'hex').toString('utf8');
    if (document.account !== account) throw new Error(`${path.join(folder, name)} holds the vault of "${document.account}", not of "${account}" its name says; move it back before copying`);
    if (!(await insertRecord(client, 'vault', account, { account, document } satisfies VaultRecord))) {
      copy.skipped.vaults += 1;
      continue;
    }
    copy.copied.vaults += 1;
    copy.copied.vault_items += document.items.length;
  }
  return copy;
}
