import { environmentImpact, type EnvironmentImpact } from '../../billing/energy.js';
import type { BillingCost } from '../../billing/ledger.js';
import { costEur, type Consumption } from '../../billing/price.js';
import type { RequestCall } from '../../http/request-call.js';
import type { CandidateRoute } from '../../routing/select.js';

export interface Metering {
  environment_impact: EnvironmentImpact;
  billing_cost: BillingCost;
  eur: string;
}

/**
 * After a call: price it on the route that served it, debit the payer, work out the
 * environmental impact, and note it all for the request log.
 */
export function meterCall(call: RequestCall, candidate: CandidateRoute, consumption: Consumption): Metering {
  const eur = costEur(consumption, candidate.route.pricing);
  const billing = call.app.ledger.settle(call.account, eur);
  const impact = environmentImpact(consumption, candidate.route.energy, candidate.providerId, candidate.provider);
  Object.assign(call.log, {
    provider: candidate.providerId,
    route: `${candidate.providerId}/${candidate.route.upstream_model}`,
    input_tokens: consumption.inputTokens,
    output_tokens: consumption.outputTokens,
    eur: billing.credits,
    energy: billing.energy,
    paid_with: billing.paid_with,
    energy_kwh: impact.energy_kwh,
    carbon_g_co2: impact.carbon_g_co2,
  });
  return { environment_impact: impact, billing_cost: billing, eur: billing.credits };
}
