import { issueCliKey } from '../auth/cli-key.js';
import { createAccount, listAccounts, setAccount } from '../admin/accounts-admin.js';
import { createKey, listKeys, revokeKey, rotateKey, type CreateKeyOptions } from '../admin/keys-admin.js';
import type { Config } from '../config/load.js';
import type { Store } from '../store/store.js';
import { createVaultItem, listVaultItems, removeVaultItem, showVaultItem, type VaultArgs } from '../vault/vault-admin.js';

/** Every state-changing CLI operation, by name: run in-process by the server, or directly by the CLI. */
export interface AdminOperations {
  'keys.create': (args: CreateKeyOptions) => ReturnType<typeof createKey>;
  'keys.list': (args: Record<string, never>) => ReturnType<typeof listKeys>;
  'keys.revoke': (args: { id: string }) => ReturnType<typeof revokeKey>;
  'keys.rotate': (args: { id: string; grace?: string }) => ReturnType<typeof rotateKey>;
  'keys.cli': (args: { rejected?: string }) => ReturnType<typeof issueCliKey>;
  'accounts.list': (args: Record<string, never>) => ReturnType<typeof listAccounts>;
  'accounts.create': (args: { id: string; plan?: string }) => ReturnType<typeof createAccount>;
  'accounts.set': (args: { id: string; plan?: string; energy?: string; credits?: string }) => ReturnType<typeof setAccount>;
  'vault.create': (args: VaultArgs & { document: unknown }) => ReturnType<typeof createVaultItem>;
  'vault.list': (args: VaultArgs) => ReturnType<typeof listVaultItems>;
  'vault.show': (args: VaultArgs & { id: string }) => ReturnType<typeof showVaultItem>;
  'vault.rm': (args: VaultArgs & { id: string }) => ReturnType<typeof removeVaultItem>;
}

export type AdminOperationName = keyof AdminOperations;

export function adminOperations(store: Store, config: Config): AdminOperations {
  return {
    'keys.create': (args) => createKey(store, config, args),
    'keys.list': () => listKeys(store),
    'keys.revoke': (args) => revokeKey(store, args.id),
    'keys.rotate': (args) => rotateKey(store, config, args.id, args.grace),
    'keys.cli': (args) => issueCliKey(store, config, args),
    'accounts.list': () => listAccounts(store),
    'accounts.create': (args) => createAccount(store, config, args.id, args.plan),
    'accounts.set': (args) => setAccount(store, config, args.id, args),
    'vault.create': (args) => createVaultItem(store, config, args),
    'vault.list': (args) => listVaultItems(store, config, args),
    'vault.show': (args) => showVaultItem(store, config, args),
    'vault.rm': (args) => removeVaultItem(store, config, args),
  };
}
