import { createAccount, listAccounts, setAccount } from '../admin/accounts-admin.js';
import { createKey, listKeys, revokeKey, rotateKey, type CreateKeyOptions } from '../admin/keys-admin.js';
import type { Config } from '../config/load.js';
import type { Store } from '../store/store.js';

/** Every state-changing CLI operation, by name: run in-process by the server, or directly by the CLI. */
export interface AdminOperations {
  'keys.create': (args: CreateKeyOptions) => ReturnType<typeof createKey>;
  'keys.list': (args: Record<string, never>) => ReturnType<typeof listKeys>;
  'keys.revoke': (args: { id: string }) => ReturnType<typeof revokeKey>;
  'keys.rotate': (args: { id: string }) => ReturnType<typeof rotateKey>;
  'accounts.list': (args: Record<string, never>) => ReturnType<typeof listAccounts>;
  'accounts.create': (args: { id: string; plan?: string }) => ReturnType<typeof createAccount>;
  'accounts.set': (args: { id: string; plan?: string; energy?: string; credits?: string }) => ReturnType<typeof setAccount>;
}

export type AdminOperationName = keyof AdminOperations;

export function adminOperations(store: Store, config: Config): AdminOperations {
  return {
    'keys.create': (args) => createKey(store, config, args),
    'keys.list': () => listKeys(store),
    'keys.revoke': (args) => revokeKey(store, args.id),
    'keys.rotate': (args) => rotateKey(store, config, args.id),
    'accounts.list': () => listAccounts(store),
    'accounts.create': (args) => createAccount(store, config, args.id, args.plan),
    'accounts.set': (args) => setAccount(store, config, args.id, args),
  };
}
