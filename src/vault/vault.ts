import { createHash, randomUUID } from 'node:crypto';
import path from 'node:path';
import { ensureDataDir } from '../store/db.js';
import { JsonDocument } from '../store/json-document.js';
import { seal as sealBytes, unseal as unsealBytes } from '../crypto/sealed.js';
import { deriveKey, newKdfParams, type KdfParams } from './crypto.js';

/**
 * The vault: per account, blueprints and skills encrypted at rest under a key derived from the
 * account's vault key (which igw never stores). One file per account, `vault/<hex account>.json`,
 * holding the scrypt parameters, a check record that tells a wrong vault key from a right one,
 * and the sealed items. Nothing in it is readable without the vault key, names included.
 */

export type VaultKind = 'blueprint' | 'skill';

/** A sealed value (crypto/sealed.ts layout), base64. */
type Sealed = string;

function seal(key: Buffer, text: string, aad: string): Sealed {
  return sealBytes(key, Buffer.from(text, 'utf8'), aad).toString('base64');
}

/** Throws when the key is wrong or the record was altered. */
function unseal(key: Buffer, sealed: Sealed, aad: string): string {
  return unsealBytes(key, Buffer.from(sealed, 'base64'), aad).toString('utf8');
}

interface ItemRecord {
  id: string;
  kind: VaultKind;
  created_at: number;
  sealed: Sealed;
}

export interface VaultDocument {
  version: 1;
  account: string;
  kdf: KdfParams;
  check: Sealed;
  items: ItemRecord[];
}

export type VaultFailure = 'no-vault' | 'wrong-key';

export class VaultError extends Error {
  constructor(
    readonly reason: VaultFailure,
    message: string,
  ) {
    super(message);
    this.name = 'VaultError';
  }
}

export interface VaultItem<T = unknown> {
  id: string;
  kind: VaultKind;
  created_at: number;
  document: T;
}

const CHECK_TEXT = 'igw-vault-check-v1';
const MAX_CACHED_KEYS = 256;

function itemAad(account: string, kind: VaultKind, id: string): string {
  return `igw-vault:${account}:${kind}:${id}`;
}

/** One account's vault document as stored: change `value` (or what it holds), then `write()`. */
export interface VaultFile {
  value: VaultDocument | null;
  write(): Promise<void>;
}

/** Opens an account's vault document: a JSON file in the data dir, or a row in team mode (team-vault-files.ts). */
export type VaultFiles = (account: string) => Promise<VaultFile>;

export class Vault {
  private readonly files = new Map<string, Promise<VaultFile>>();
  /** Derived keys by hash of (account, salt, vault key): scrypt runs once per key, not per request. */
  private readonly keys = new Map<string, Promise<Buffer>>();

  private readonly openFile: VaultFiles;

  constructor(
    private readonly dataDir: string,
    private readonly kdfCost?: { N: number; r: number; p: number },
    openFile?: VaultFiles,
  ) {
    this.openFile = openFile ?? ((account) => JsonDocument.open<VaultDocument | null>(path.join(this.dataDir, 'vault'), Buffer.from(account, 'utf8').toString('hex'), null));
  }

  private file(account: string): Promise<VaultFile> {
    let file = this.files.get(account);
    if (file === undefined) {
      file = this.openFile(account);
      this.files.set(account, file);
      file.catch(() => this.files.delete(account));
    }
    return file;
  }

  private key(document: VaultDocument, secret: string): Promise<Buffer> {
    const cacheKey = createHash('sha256').update(`${document.account}\0${document.kdf.salt}\0${secret}`).digest('hex');
    let key = this.keys.get(cacheKey);
    if (key === undefined) {
      if (this.keys.size >= MAX_CACHED_KEYS) this.keys.delete(this.keys.keys().next().value!);
      key = deriveKey(secret, document.kdf);
      this.keys.set(cacheKey, key);
      key.catch(() => this.keys.delete(cacheKey));
    }
    return key;
  }

  /** Whether the account has a vault yet. */
  async exists(account: string): Promise<boolean> {
    return (await this.file(account)).value !== null;
  }

  /**
   * Opens the account's vault with the caller's vault key. `create` makes a new vault (keyed by
   * this vault key) when the account has none; otherwise a missing vault is `no-vault`. A key
   * that does not open the check record is `wrong-key`.
   */
  async unlock(account: string, secret: string, options: { create?: boolean } = {}): Promise<UnlockedVault> {
    const file = await this.file(account);
    if (file.value === null) {
      if (options.create !== true) throw new VaultError('no-vault', `account "${account}" has no vault yet`);
      await ensureDataDir(this.dataDir, 'vault');
      const kdf = newKdfParams(this.kdfCost);
      const draft: VaultDocument = { version: 1, account, kdf, check: '', items: [] };
      const key = await this.key(draft, secret);
      // Another creation may have finished while scrypt ran: the first one wins.
      if (file.value === null) {
        draft.check = seal(key, CHECK_TEXT, `igw-vault-check:${account}`);
        file.value = draft;
        await file.write();
      }
    }
    const document = file.value!;
    const key = await this.key(document, secret);
    try {
      if (unseal(key, document.check, `igw-vault-check:${account}`) !== CHECK_TEXT) throw new Error('check text differs');
    } catch {
      throw new VaultError('wrong-key', `the vault key does not open the vault of account "${account}"`);
    }
    return new UnlockedVault(file, document, key);
  }
}

/** A vault opened with the right key: read and change its items. */
export class UnlockedVault {
  constructor(
    private readonly file: VaultFile,
    private readonly document: VaultDocument,
    private readonly key: Buffer,
  ) {}

  private open<T>(record: ItemRecord): VaultItem<T> {
    const text = unseal(this.key, record.sealed, itemAad(this.document.account, record.kind, record.id));
    return { id: record.id, kind: record.kind, created_at: record.created_at, document: JSON.parse(text) as T };
  }

  get<T>(kind: VaultKind, id: string): VaultItem<T> | undefined {
    const record = this.document.items.find((item) => item.kind === kind && item.id === id);
    return record === undefined ? undefined : this.open<T>(record);
  }

  list<T>(kind: VaultKind): Array<VaultItem<T>> {
    return this.document.items.filter((item) => item.kind === kind).map((record) => this.open<T>(record));
  }

  async put<T>(kind: VaultKind, document: T, nowSeconds = Math.floor(Date.now() / 1000)): Promise<VaultItem<T>> {
    const id = randomUUID();
    const record: ItemRecord = { id, kind, created_at: nowSeconds, sealed: seal(this.key, JSON.stringify(document), itemAad(this.document.account, kind, id)) };
    this.document.items.push(record);
    await this.file.write();
    return { id, kind, created_at: nowSeconds, document };
  }

  async remove(kind: VaultKind, id: string): Promise<boolean> {
    const index = this.document.items.findIndex((item) => item.kind === kind && item.id === id);
    if (index === -1) return false;
    this.document.items.splice(index, 1);
    await this.file.write();
    return true;
  }
}
