import type { Config } from '../config/load.js';
import type { PlanConfig } from '../config/schema.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { AccountRecord } from '../store/accounts.js';
import type { AccountRepositoryPort } from '../store/repositories.js';
import { Decimal, formatDecimal, parseBalance, type Balance } from './money.js';

export interface BillingCost {
  energy: string;
  credits: string;
  paid_with: 'energy' | 'credits';
}

/** What a plan may pay with (DESIGN §2 "Who pays"). */
function paysWithEnergy(plan: PlanConfig): boolean {
  return plan.benefits.includes('api_usage');
}

function covers(balance: Balance, amount: Decimal): boolean {
  return balance === 'unlimited' || balance.greaterThanOrEqualTo(amount);
}

function positive(balance: Balance): boolean {
  return balance === 'unlimited' || balance.greaterThan(0);
}

/**
 * Preflight and settlement. Preflight refuses before anything goes upstream when the balances
 * the plan may use are exhausted; settlement debits the balance actually used. The exact cost is
 * only known afterwards, so a balance may end slightly below zero: the next preflight refuses.
 */
export class Ledger {
  private readonly energyUnitsPerEur: Decimal;

  constructor(
    private readonly config: Config,
    private readonly accounts: AccountRepositoryPort,
  ) {
    this.energyUnitsPerEur = new Decimal(String(config.billing.energy_units_per_eur));
  }

  plan(account: AccountRecord): { name: string; plan: PlanConfig } {
    const plan = this.config.plans[account.plan] ?? this.config.plans[this.config.default_plan]!;
    return { name: this.config.plans[account.plan] === undefined ? this.config.default_plan : account.plan, plan };
  }

  preflight(account: AccountRecord): void {
    const { plan } = this.plan(account);
    const energy = parseBalance(account.energy);
    const credits = parseBalance(account.credits);
    if (paysWithEnergy(plan)) {
      if (!positive(energy) && !positive(credits)) {
        throw new GatewayError('BILLING_2001', `Account "${account.id}" is out of energy and credits. Top up with \`igw accounts set ${account.id} --energy N\` (or --credits N).`, {
          account: account.id,
        });
      }
    } else if (!positive(credits)) {
      throw new GatewayError('BILLING_2003', `Account "${account.id}" is out of credits and its plan does not pay from energy. Top up with \`igw accounts set ${account.id} --credits N\`.`, {
        account: account.id,
      });
    }
  }

  /** Debits the cost (EUR) and returns the billing_cost object for the response. */
  settle(account: AccountRecord, costEur: Decimal): BillingCost {
    const { plan } = this.plan(account);
    const energyCost = costEur.isZero() ? costEur : costEur.mul(this.energyUnitsPerEur);
    const paidWith = this.chooseBalance(account, plan, energyCost);
    if (!costEur.isZero()) {
      void this.accounts.debit(account.id, paidWith, paidWith === 'energy' ? energyCost.toFixed() : costEur.toFixed()).catch((error: unknown) => {
        process.stderr.write(`${JSON.stringify({ level: 'error', msg: 'balance journal write failed', error: String(error) })}\n`);
      });
    }
    return { energy: formatDecimal(energyCost), credits: formatDecimal(costEur), paid_with: paidWith };
  }

  private chooseBalance(account: AccountRecord, plan: PlanConfig, energyCost: Decimal): 'energy' | 'credits' {
    if (!paysWithEnergy(plan)) return 'credits';
    const energy = parseBalance(account.energy);
    if (covers(energy, energyCost)) return 'energy';
    // Energy no longer covers this cost: credits take over while they have anything left.
    if (positive(parseBalance(account.credits))) return 'credits';
    return 'energy';
  }
}
