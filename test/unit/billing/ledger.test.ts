import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Ledger } from '../../../src/billing/ledger.js';
import { Decimal } from '../../../src/billing/money.js';
import { buildConfig, type Config } from '../../../src/config/load.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import type { AccountRecord } from '../../../src/store/accounts.js';
import { openStore, type Store } from '../../../src/store/store.js';

const dirs: string[] = [];
const stores: Store[] = [];

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close().catch(() => undefined);
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function setup(account: Omit<AccountRecord, 'id' | 'created_at'>, raw: unknown = {}): Promise<{ dir: string; store: Store; ledger: Ledger; config: Config; account: () => AccountRecord }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'igw-unit-ledger-'));
  dirs.push(dir);
  const store = await openStore(dir);
  stores.push(store);
  const config = buildConfig(raw, null, {});
  await store.accounts.insert({ id: 'acct', created_at: 0, ...account });
  return { dir, store, ledger: new Ledger(config, store.accounts), config, account: () => store.accounts.get('acct')! };
}

function refusal(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error('expected a billing refusal');
}

async function journalHas(dir: string, lines: number): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const text = await readFile(path.join(dir, 'balances.jsonl'), 'utf8').catch(() => '');
    if (text.split('\n').filter((line) => line.trim() !== '').length >= lines) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('journal never got the debit');
}

const eur = (value: string) => new Decimal(value);

describe('Ledger.settle: who pays (DESIGN §2)', () => {
  it.each<{
    name: string;
    plan: string;
    energy: string;
    credits: string;
    cost: string;
    paidWith: 'energy' | 'credits';
    energyAfter: string;
    creditsAfter: string;
    billed: { energy: string; credits: string };
  }>([
    { name: 'api_usage: energy covers the cost', plan: 'developer', energy: '1000', credits: '10', cost: '0.5', paidWith: 'energy', energyAfter: '500', creditsAfter: '10', billed: { energy: '500', credits: '0.5' } },
    { name: 'api_usage: energy covers exactly', plan: 'developer', energy: '500', credits: '10', cost: '0.5', paidWith: 'energy', energyAfter: '0', creditsAfter: '10', billed: { energy: '500', credits: '0.5' } },
    { name: 'api_usage: energy short, credits take over', plan: 'developer', energy: '400', credits: '10', cost: '0.5', paidWith: 'credits', energyAfter: '400', creditsAfter: '9.5', billed: { energy: '500', credits: '0.5' } },
    { name: 'api_usage: energy short, credits exhausted → energy goes negative', plan: 'developer', energy: '400', credits: '0', cost: '0.5', paidWith: 'energy', energyAfter: '-100', creditsAfter: '0', billed: { energy: '500', credits: '0.5' } },
    { name: 'api_usage: unlimited energy', plan: 'developer', energy: 'unlimited', credits: '0', cost: '3', paidWith: 'energy', energyAfter: 'unlimited', creditsAfter: '0', billed: { energy: '3000', credits: '3' } },
    { name: 'api_usage: no energy, unlimited credits', plan: 'developer', energy: '0', credits: 'unlimited', cost: '3', paidWith: 'credits', energyAfter: '0', creditsAfter: 'unlimited', billed: { energy: '3000', credits: '3' } },
    { name: 'no api_usage: credits only, even with energy', plan: 'free', energy: '1000000', credits: '10', cost: '0.25', paidWith: 'credits', energyAfter: '1000000', creditsAfter: '9.75', billed: { energy: '250', credits: '0.25' } },
    { name: 'no api_usage: unlimited energy is never touched', plan: 'free', energy: 'unlimited', credits: '1', cost: '0.1', paidWith: 'credits', energyAfter: 'unlimited', creditsAfter: '0.9', billed: { energy: '100', credits: '0.1' } },
    { name: 'no api_usage: credits go slightly negative', plan: 'free', energy: '0', credits: '0.001', cost: '0.002', paidWith: 'credits', energyAfter: '0', creditsAfter: '-0.001', billed: { energy: '2', credits: '0.002' } },
    { name: 'tiny exact cost', plan: 'developer', energy: '1', credits: '0', cost: '0.00000553', paidWith: 'energy', energyAfter: '0.99447', creditsAfter: '0', billed: { energy: '0.00553', credits: '0.00000553' } },
    { name: 'free call debits nothing', plan: 'free', energy: '0', credits: '1', cost: '0', paidWith: 'credits', energyAfter: '0', creditsAfter: '1', billed: { energy: '0', credits: '0' } },
    { name: 'unknown plan falls back to default_plan (developer)', plan: 'gone', energy: '1000', credits: '0', cost: '0.5', paidWith: 'energy', energyAfter: '500', creditsAfter: '0', billed: { energy: '500', credits: '0.5' } },
  ])('$name', async ({ plan, energy, credits, cost, paidWith, energyAfter, creditsAfter, billed }) => {
    const { ledger, account } = await setup({ plan, energy, credits });
    expect(() => ledger.preflight(account())).not.toThrow();
    expect(ledger.settle(account(), eur(cost))).toEqual({ ...billed, paid_with: paidWith });
    expect(account().energy).toBe(energyAfter);
    expect(account().credits).toBe(creditsAfter);
  });

  it('api_usage: pays energy while it covers the cost, then switches to credits', async () => {
    const { ledger, account } = await setup({ plan: 'developer', energy: '1000', credits: '2' });
    const paid = [0.3, 0.3, 0.3, 0.3].map((cost) => {
      ledger.preflight(account());
      return ledger.settle(account(), eur(String(cost))).paid_with;
    });
    expect(paid).toEqual(['energy', 'energy', 'energy', 'credits']);
    expect(account().energy).toBe('100');
    expect(account().credits).toBe('1.7');
  });

  it('uses billing.energy_units_per_eur', async () => {
    const { ledger, account } = await setup({ plan: 'developer', energy: '10', credits: '0' }, { billing: { energy_units_per_eur: 250 } });
    expect(ledger.settle(account(), eur('0.02'))).toEqual({ energy: '5', credits: '0.02', paid_with: 'energy' });
    expect(account().energy).toBe('5');
  });
});

describe('Ledger.preflight', () => {
  it.each<{ name: string; plan: string; energy: string; credits: string; code: 'BILLING_2001' | 'BILLING_2003' | null }>([
    { name: 'api_usage with energy', plan: 'developer', energy: '1', credits: '0', code: null },
    { name: 'api_usage with credits only', plan: 'developer', energy: '0', credits: '1', code: null },
    { name: 'api_usage with negative energy but credits', plan: 'developer', energy: '-3', credits: '0.01', code: null },
    { name: 'api_usage with both exhausted', plan: 'developer', energy: '0', credits: '0', code: 'BILLING_2001' },
    { name: 'api_usage with both negative', plan: 'developer', energy: '-0.5', credits: '-0.1', code: 'BILLING_2001' },
    { name: 'api_usage unlimited energy', plan: 'developer', energy: 'unlimited', credits: '0', code: null },
    { name: 'api_usage unlimited credits', plan: 'developer', energy: '0', credits: 'unlimited', code: null },
    { name: 'no api_usage with credits', plan: 'free', energy: '0', credits: '0.5', code: null },
    { name: 'no api_usage, no credits, plenty of energy', plan: 'free', energy: '1000000', credits: '0', code: 'BILLING_2003' },
    { name: 'no api_usage, unlimited energy, no credits', plan: 'free', energy: 'unlimited', credits: '0', code: 'BILLING_2003' },
    { name: 'no api_usage, negative credits', plan: 'free', energy: '0', credits: '-0.001', code: 'BILLING_2003' },
    { name: 'no api_usage, unlimited credits', plan: 'free', energy: '0', credits: 'unlimited', code: null },
  ])('$name → $code', async ({ plan, energy, credits, code }) => {
    const { ledger, account } = await setup({ plan, energy, credits });
    if (code === null) {
      expect(() => ledger.preflight(account())).not.toThrow();
      return;
    }
    const error = refusal(() => ledger.preflight(account()));
    expect(error.code).toBe(code);
    expect(error.status).toBe(402);
    expect(error.retryable).toBe(false);
    expect(error.details).toEqual({ account: 'acct' });
  });

  it.each<{ plan: string; energy: string; credits: string; paidWith: 'energy' | 'credits'; after: string; code: string }>([
    { plan: 'developer', energy: '1', credits: '0', paidWith: 'energy', after: '-0.5', code: 'BILLING_2001' },
    { plan: 'free', energy: '0', credits: '0.001', paidWith: 'credits', after: '-0.0005', code: 'BILLING_2003' },
  ])('$plan: a balance that ends slightly below zero ($after) refuses the next request with $code', async ({ plan, energy, credits, paidWith, after, code }) => {
    const { ledger, account } = await setup({ plan, energy, credits });
    ledger.preflight(account());
    expect(ledger.settle(account(), eur('0.0015')).paid_with).toBe(paidWith);
    expect(account()[paidWith]).toBe(after);
    expect(refusal(() => ledger.preflight(account())).code).toBe(code);
  });

  it('unlimited balances never refuse', async () => {
    const { ledger, account } = await setup({ plan: 'developer', energy: 'unlimited', credits: 'unlimited' });
    for (let index = 0; index < 100; index += 1) {
      ledger.preflight(account());
      expect(ledger.settle(account(), eur('1000000')).paid_with).toBe('energy');
    }
    expect(account()).toMatchObject({ energy: 'unlimited', credits: 'unlimited' });
  });
});

describe('Ledger debits are durable', () => {
  it('a debit survives reopening the data dir (journal replay, no flush)', async () => {
    const { dir, ledger, account } = await setup({ plan: 'developer', energy: '1000', credits: '5' });
    ledger.settle(account(), eur('0.25'));
    ledger.settle(account(), eur('0.8'));
    await journalHas(dir, 2);
    const reopened = await openStore(dir);
    stores.push(reopened);
    expect(reopened.accounts.get('acct')).toMatchObject({ energy: '750', credits: '4.2' });
    const again = new Ledger(buildConfig({}, null, {}), reopened.accounts);
    expect(again.settle(reopened.accounts.get('acct')!, eur('0.75')).paid_with).toBe('energy');
    expect(reopened.accounts.get('acct')!.energy).toBe('0');
    expect(refusal(() => again.preflight({ ...reopened.accounts.get('acct')!, credits: '0' })).code).toBe('BILLING_2001');
  });
});
