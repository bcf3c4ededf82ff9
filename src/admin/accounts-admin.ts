import { formatBalance, parseBalance } from '../billing/money.js';
import type { Config } from '../config/load.js';
import type { AccountRecord } from '../store/accounts.js';
import type { Store } from '../store/store.js';
import { AdminError } from './admin-error.js';

export interface AccountView {
  id: string;
  plan: string;
  energy: string;
  credits: string;
  created_at: number;
}

function view(record: AccountRecord): AccountView {
  return { id: record.id, plan: record.plan, energy: formatBalance(parseBalance(record.energy)), credits: formatBalance(parseBalance(record.credits)), created_at: record.created_at };
}

const ACCOUNT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function checkPlan(config: Config, plan: string): void {
  if (config.plans[plan] === undefined) {
    throw new AdminError(`unknown plan "${plan}"`, `use one of: ${Object.keys(config.plans).join(', ')} (plans come from the config file)`);
  }
}

function checkBalance(value: string, flag: string): string {
  if (value === 'unlimited') return value;
  if (!/^-?\d+(\.\d+)?$/.test(value)) throw new AdminError(`invalid ${flag} "${value}"`, `give a decimal number such as 1000 or 12.5, or "unlimited"`);
  return parseBalance(value) === 'unlimited' ? value : String(value);
}

export function listAccounts(store: Store): AccountView[] {
  return store.accounts.list().map(view);
}

export async function createAccount(store: Store, config: Config, id: string, plan?: string, nowSeconds = Math.floor(Date.now() / 1000)): Promise<AccountView> {
  if (!ACCOUNT_ID.test(id)) throw new AdminError(`invalid account id "${id}"`, 'use letters, digits, dot, dash or underscore (at most 64)');
  if (store.accounts.get(id) !== undefined) throw new AdminError(`account "${id}" already exists`, `change it with: igw accounts set ${id} --plan P`);
  const planName = plan ?? config.default_plan;
  checkPlan(config, planName);
  const record: AccountRecord = {
    id,
    plan: planName,
    energy: String(config.billing.initial_energy),
    credits: String(config.billing.initial_credits),
    created_at: nowSeconds,
  };
  await store.accounts.insert(record);
  return view(record);
}

/** The account a key is created for: `default` is created on first use with the default plan. */
export async function ensureAccount(store: Store, config: Config, id: string): Promise<AccountRecord> {
  const existing = store.accounts.get(id);
  if (existing !== undefined) return existing;
  if (id !== 'default') throw new AdminError(`unknown account "${id}"`, `create it first: igw accounts create ${id}`);
  await createAccount(store, config, id);
  return store.accounts.get(id)!;
}

export async function setAccount(store: Store, config: Config, id: string, change: { plan?: string; energy?: string; credits?: string }): Promise<AccountView> {
  const record = store.accounts.get(id);
  if (record === undefined) throw new AdminError(`unknown account "${id}"`, `create it first: igw accounts create ${id}`);
  const update: Partial<AccountRecord> = {};
  if (change.plan !== undefined) {
    checkPlan(config, change.plan);
    update.plan = change.plan;
  }
  if (change.energy !== undefined) update.energy = checkBalance(change.energy, '--energy');
  if (change.credits !== undefined) update.credits = checkBalance(change.credits, '--credits');
  if (Object.keys(update).length === 0) throw new AdminError('nothing to change', 'pass --plan, --energy or --credits');
  // Fold pending debits first so a new balance is not reduced by debits made before it was set.
  await store.accounts.flush();
  return view((await store.accounts.update(id, update))!);
}
