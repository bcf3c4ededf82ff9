import { environmentImpact, type EnvironmentImpact } from '../billing/energy.js';
import type { BillingCost } from '../billing/ledger.js';
import { costEur, type Consumption } from '../billing/price.js';
import type { CandidateRoute } from '../routing/select.js';
import type { ChatUsage } from '../translate/chat/types.js';
import type { InferenceScope } from './scope.js';

export interface Metering {
  environment_impact: EnvironmentImpact;
  billing_cost: BillingCost;
  eur: string;
}

/** A blueprint's direct answer: no model ran; the log names the blueprint (`blueprint/<finish reason>`). */
export interface DirectServer {
  finishReason: string;
}

/** Hub usage as billing consumption (tokens only). */
export function consumptionOf(usage: ChatUsage): Consumption {
  return { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens, cachedTokens: usage.cached_tokens, images: 0, audioMinutes: 0 };
}

/**
 * Stages "meter" and "log": price the consumption on the route that served, debit the payer
 * (billing/ledger), work out the environmental impact, and note it all in the request-log fields.
 * A direct answer is metered on the route that would have served (zero consumption, so zero
 * cost and impact) and logged as provider `blueprint`.
 */
export function meterCall(scope: InferenceScope, candidate: CandidateRoute, consumption: Consumption, direct?: DirectServer): Metering {
  const eur = costEur(consumption, candidate.route.pricing);
  const billing = scope.deps.ledger.settle(scope.account, eur);
  const impact = environmentImpact(consumption, candidate.route.energy, candidate.providerId, candidate.provider);
  const log = scope.log;
  log.provider = direct === undefined ? candidate.providerId : 'blueprint';
  log.route = direct === undefined ? `${candidate.providerId}/${candidate.route.upstream_model}` : `blueprint/${direct.finishReason}`;
  log.input_tokens = consumption.inputTokens;
  log.output_tokens = consumption.outputTokens;
  log.eur = billing.credits;
  log.energy = billing.energy;
  log.paid_with = billing.paid_with;
  log.energy_kwh = impact.energy_kwh;
  log.carbon_g_co2 = impact.carbon_g_co2;
  return { environment_impact: impact, billing_cost: billing, eur: billing.credits };
}

/** The two objects every metered answer carries on the wire (spec "billing_cost", "environment_impact"). */
export function billingFields(metering: Metering): { environment_impact: EnvironmentImpact; billing_cost: BillingCost } {
  return { environment_impact: metering.environment_impact, billing_cost: metering.billing_cost };
}
