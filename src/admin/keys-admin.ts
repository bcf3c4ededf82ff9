import { displayKey, generateApiKey, hashApiKey } from '../auth/keys.js';
import { KNOWN_SCOPES } from '../auth/scopes.js';
import type { Config } from '../config/load.js';
import type { KeyRecord } from '../store/keys.js';
import type { Store } from '../store/store.js';
import { randomUrlSafe } from '../util/ids.js';
import { AdminError } from './admin-error.js';
import { ensureAccount } from './accounts-admin.js';
import { parseDuration } from './duration.js';

export interface CreateKeyOptions {
  name?: string;
  scopes?: string[];
  vault?: boolean;
  account?: string;
  expiresIn?: string;
}

/** `keys create --json` shape (DESIGN §1): the full key appears here and nowhere else, ever. */
export interface CreatedKey {
  id: string;
  key: string;
  name: string;
  scopes: string[];
  vault_access: boolean;
  account: string;
  created_at: number;
  expires_at: number | null;
}

export interface KeyView {
  id: string;
  name: string;
  key: string;
  scopes: string[];
  vault_access: boolean;
  account: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  status: 'active' | 'revoked' | 'expired';
  /** The local CLI's own key (obtained by client commands run without --api-key). */
  cli: boolean;
}

function checkScopes(scopes: string[]): string[] {
  for (const scope of scopes) {
    if (!(KNOWN_SCOPES as readonly string[]).includes(scope)) {
      throw new AdminError(`unknown scope "${scope}"`, `use any of: ${KNOWN_SCOPES.join(', ')}`);
    }
  }
  return [...new Set(scopes)];
}

export async function createKey(
  store: Store,
  config: Config,
  options: CreateKeyOptions,
  nowSeconds = Math.floor(Date.now() / 1000),
  owner?: KeyRecord['owner'],
): Promise<CreatedKey> {
  const scopes = checkScopes(options.scopes ?? []);
  const account = await ensureAccount(store, config, options.account ?? 'default');
  const expiresAt = options.expiresIn === undefined ? null : nowSeconds + parseDuration(options.expiresIn);
  const key = generateApiKey();
  const record: KeyRecord = {
    id: `key_${randomUrlSafe(16).replace(/[-_]/g, 'x')}`,
    name: options.name ?? '',
    hash: hashApiKey(key),
    display: displayKey(key),
    scopes,
    vault_access: options.vault ?? false,
    account: account.id,
    created_at: nowSeconds,
    expires_at: expiresAt,
    revoked_at: null,
    ...(owner === undefined ? {} : { owner }),
  };
  await store.keys.insert(record);
  return { id: record.id, key, name: record.name, scopes, vault_access: record.vault_access, account: record.account, created_at: nowSeconds, expires_at: expiresAt };
}

export function listKeys(store: Store, nowSeconds = Math.floor(Date.now() / 1000)): KeyView[] {
  return store.keys.list().map((record) => ({
    id: record.id,
    name: record.name,
    key: record.display,
    scopes: record.scopes,
    vault_access: record.vault_access,
    account: record.account,
    created_at: record.created_at,
    expires_at: record.expires_at,
    revoked_at: record.revoked_at,
    status: record.revoked_at !== null ? 'revoked' : record.expires_at !== null && record.expires_at <= nowSeconds ? 'expired' : 'active',
    cli: record.owner === 'cli',
  }));
}

function activeKey(store: Store, id: string): KeyRecord {
  const record = store.keys.get(id);
  if (record === undefined) throw new AdminError(`no key with id "${id}"`, 'list key ids with: igw keys list');
  if (record.revoked_at !== null) throw new AdminError(`key "${id}" is already revoked`, 'create a new one with: igw keys create');
  return record;
}

export async function revokeKey(store: Store, id: string, nowSeconds = Math.floor(Date.now() / 1000)): Promise<{ id: string; revoked_at: number }> {
  activeKey(store, id);
  await store.keys.update(id, { revoked_at: nowSeconds });
  return { id, revoked_at: nowSeconds };
}

/** `keys rotate --json`: the new key, the one it replaces, and until when the old one still works. */
export interface RotatedKey extends CreatedKey {
  replaces: string;
  /** When the old key stops working: now without a grace period. */
  old_key_valid_until: number;
}

/**
 * A new key with the same settings. The old one stops working at once, or, with a grace period
 * (`--grace 24h`), keeps working until it ends (never past its own expiry), so clients can be
 * moved to the new key without downtime.
 */
export async function rotateKey(store: Store, config: Config, id: string, grace = '0', nowSeconds = Math.floor(Date.now() / 1000)): Promise<RotatedKey> {
  const old = activeKey(store, id);
  // Its value is never shown, so a rotated copy could only be printed: it renews itself instead.
  if (old.owner === 'cli') throw new AdminError(`key "${id}" is the CLI's own key, which is never shown`, `revoke it (igw keys revoke ${id}); the next client command gets a fresh one by itself`);
  const graceSeconds = /^0+\s*[smhdw]?$/.test(grace.trim()) ? 0 : parseDuration(grace);
  const remainingSeconds = old.expires_at === null ? undefined : Math.max(1, old.expires_at - nowSeconds);
  const validUntil = old.expires_at === null ? nowSeconds + graceSeconds : Math.min(old.expires_at, nowSeconds + graceSeconds);
  if (graceSeconds === 0) await store.keys.update(id, { revoked_at: nowSeconds });
  else await store.keys.update(id, { expires_at: validUntil });
  const created = await createKey(
    store,
    config,
    { name: old.name, scopes: old.scopes, vault: old.vault_access, account: old.account, ...(remainingSeconds === undefined ? {} : { expiresIn: `${remainingSeconds}s` }) },
    nowSeconds,
  );
  return { ...created, replaces: id, old_key_valid_until: graceSeconds === 0 ? nowSeconds : validUntil };
}
