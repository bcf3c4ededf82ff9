import { AdminError } from '../admin/admin-error.js';
import { ensureAccount } from '../admin/accounts-admin.js';
import { blueprintSchema, skillSchema } from '../blueprints/documents.js';
import { fieldPath } from '../endpoints/validation/parse.js';
import { describeIssue, type IssueLike } from '../endpoints/validation/issue-text.js';
import type { Config } from '../config/load.js';
import type { Store } from '../store/store.js';
import { VaultError, type UnlockedVault, type VaultKind } from './vault.js';

/**
 * `igw blueprints …` / `igw skills …`: vault items of one account, run by the server (admin
 * socket) or directly on the data dir. Every operation needs the account's vault key; the first
 * `create` on an account sets it.
 */

export interface VaultArgs {
  kind: VaultKind;
  vault_key: string;
  account?: string;
}

export interface VaultItemView {
  id: string;
  kind: VaultKind;
  name: string;
  description: string | null;
  account: string;
  created_at: number;
}

/** New vaults need a vault key of some length: it is the only secret between the data dir and the documents. */
export const MIN_VAULT_KEY_LENGTH = 8;

const COMMAND: Record<VaultKind, string> = { blueprint: 'blueprints', skill: 'skills' };

async function unlock(store: Store, config: Config, args: VaultArgs, create: boolean): Promise<{ vault: UnlockedVault; account: string }> {
  const account = (await ensureAccount(store, config, args.account ?? 'default')).id;
  if (typeof args.vault_key !== 'string' || args.vault_key === '') throw new AdminError('no vault key', 'set IGW_VAULT_KEY (or run on a terminal to be asked for it)');
  if (create && !(await store.vault.exists(account)) && args.vault_key.length < MIN_VAULT_KEY_LENGTH) {
    throw new AdminError(`a new vault key must have at least ${MIN_VAULT_KEY_LENGTH} characters`, 'choose a longer IGW_VAULT_KEY; it encrypts every blueprint and skill of the account');
  }
  try {
    return { vault: await store.vault.unlock(account, args.vault_key, { create }), account };
  } catch (error) {
    if (error instanceof VaultError && error.reason === 'wrong-key') throw new AdminError(`wrong vault key for account "${account}"`, 'use the vault key the first blueprint or skill of this account was created with');
    if (error instanceof VaultError && error.reason === 'no-vault') throw new AdminError(`account "${account}" has no vault yet`, `create something first: igw ${COMMAND[args.kind]} create FILE`);
    throw error;
  }
}

function view(kind: VaultKind, account: string, item: { id: string; created_at: number; document: unknown }): VaultItemView {
  const document = item.document as { name: string; description?: string };
  return { id: item.id, kind, name: document.name, description: document.description ?? null, account, created_at: item.created_at };
}

export async function createVaultItem(store: Store, config: Config, args: VaultArgs & { document: unknown }): Promise<VaultItemView> {
  const schema = args.kind === 'blueprint' ? blueprintSchema : skillSchema;
  const parsed = schema.safeParse(args.document);
  if (!parsed.success) {
    const issue = describeIssue(parsed.error.issues[0]! as IssueLike, args.document);
    const where = fieldPath(issue.path);
    throw new AdminError(`invalid ${args.kind}${where === '' ? '' : ` at "${where}"`}: ${issue.text}`, `fix the file (the format is schemas/${args.kind}.schema.json, see README "Blueprints and skills")`);
  }
  const { vault, account } = await unlock(store, config, args, true);
  return view(args.kind, account, await vault.put(args.kind, parsed.data));
}

export async function listVaultItems(store: Store, config: Config, args: VaultArgs): Promise<VaultItemView[]> {
  const account = (await ensureAccount(store, config, args.account ?? 'default')).id;
  if (!(await store.vault.exists(account))) return [];
  const { vault } = await unlock(store, config, args, false);
  return vault.list(args.kind).map((item) => view(args.kind, account, item));
}

export async function showVaultItem(store: Store, config: Config, args: VaultArgs & { id: string }): Promise<VaultItemView & { document: unknown }> {
  const { vault, account } = await unlock(store, config, args, false);
  const item = vault.get(args.kind, args.id);
  if (item === undefined) throw new AdminError(`no ${args.kind} "${args.id}" in the vault of account "${account}"`, `list them with: igw ${COMMAND[args.kind]} list`);
  return { ...view(args.kind, account, item), document: item.document };
}

export async function removeVaultItem(store: Store, config: Config, args: VaultArgs & { id: string }): Promise<{ id: string; deleted: true }> {
  const { vault, account } = await unlock(store, config, args, false);
  if (!(await vault.remove(args.kind, args.id))) throw new AdminError(`no ${args.kind} "${args.id}" in the vault of account "${account}"`, `list them with: igw ${COMMAND[args.kind]} list`);
  return { id: args.id, deleted: true };
}
