import type { Collection } from '../store/collection.js';
import type { VaultDocument, VaultFile, VaultFiles } from './vault.js';

/** One account's vault in team mode: a record of the shared `vault` collection. */
export interface VaultRecord {
  account: string;
  document: VaultDocument;
}

/**
 * Team mode (issue 19; DESIGN §4): each account's vault document (already sealed item by item
 * under the account's vault key) is one record of a PostgresCollection, so a blueprint saved
 * through one instance is read by every other. A document is written whole, as in the data dir.
 */
export function teamVaultFiles(records: Collection<VaultRecord>): VaultFiles {
  return async (account) => new CollectionVaultFile(records, account);
}

class CollectionVaultFile implements VaultFile {
  /** A document set here and not written yet (a vault being created). */
  private draft: VaultDocument | null = null;

  constructor(
    private readonly records: Collection<VaultRecord>,
    private readonly account: string,
  ) {}

  get value(): VaultDocument | null {
    return this.draft ?? this.records.get(this.account)?.document ?? null;
  }

  set value(document: VaultDocument | null) {
    this.draft = document;
  }

  async write(): Promise<void> {
    const document = this.value;
    this.draft = null;
    if (document === null) await this.records.delete(this.account);
    else await this.records.put({ account: this.account, document });
  }
}
