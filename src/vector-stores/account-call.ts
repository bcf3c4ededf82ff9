import type { AppContext } from '../app/context.js';
import { environmentImpact } from '../billing/energy.js';
import { toDecimal } from '../billing/money.js';
import { costEur } from '../billing/price.js';
import type { ModelType } from '../config/schema.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { CallLog } from '../http/request-call.js';
import type { RequestLogEntry } from '../store/request-log.js';
import type { ProviderAdapter } from '../providers/types.js';
import { tryRoutes } from '../routing/fallback.js';
import { routeKey } from '../routing/health.js';
import { selectRoutes, type CandidateRoute, type RouteOrder } from '../routing/select.js';

export interface AccountCallOptions {
  signal?: AbortSignal;
  /** The request-log line of the HTTP call this work belongs to; without one, a line of its own is written. */
  log?: CallLog;
  /** What the request-log line says (`endpoint` column) when the work has no call of its own. */
  endpoint: string;
  /** The key whose request caused this work (ingestion: the upload's), for its own log line. */
  keyId?: string | null;
}

export interface AccountCall<T> {
  /** The catalog type the model must have. */
  type: ModelType;
  /** Route order: embeddings by price (spec), others by priority. */
  order: RouteOrder;
  /** Whether an adapter can serve this kind of call. */
  serves(adapter: ProviderAdapter): boolean;
  run(adapter: ProviderAdapter, context: { signal: AbortSignal; upstreamModel: string; requestId: string }): Promise<T>;
  /** Input tokens the provider reported, for billing. */
  tokens(result: T): number;
}

/**
 * Runs a model call on behalf of an account off its own HTTP request (ingestion embeddings, the
 * search query's embedding, the search rerank stage) with the same routing, fallback and billing
 * as the public endpoints: route health and order, ledger preflight and settlement, a request-log
 * line (or the calling request's line, which then carries the sum).
 */
export async function callForAccount<T>(app: AppContext, accountId: string, modelId: string, call: AccountCall<T>, options: AccountCallOptions): Promise<T> {
  const started = app.clock.now();
  const account = app.store.accounts.get(accountId);
  if (account === undefined) throw new GatewayError('AUTH_1008', `Account "${accountId}" no longer exists.`);
  const { name: planName, plan } = app.ledger.plan(account);
  const resolved = app.catalog.resolve(modelId, plan, planName, [call.type]);
  const candidates = selectRoutes(resolved.model, resolved.flavor, app.config.providers, {
    order: call.order,
    health: app.routeHealth.snapshotOf(resolved.model.routes.map((route) => routeKey({ providerId: route.provider, route }))),
  }).filter((candidate) => {
    try {
      return call.serves(app.providers.get(candidate.providerId));
    } catch {
      return false;
    }
  });
  if (candidates.length === 0) throw new GatewayError('INFERENCE_3104', `No provider of "${modelId}" serves ${call.type}.`);
  app.ledger.preflight(account);
  const signal = options.signal ?? new AbortController().signal;
  const requestId = app.ids.next('req_');
  const { result, candidate } = await tryRoutes(
    candidates,
    signal,
    (route: CandidateRoute) => call.run(app.providers.get(route.providerId), { signal, upstreamModel: route.route.upstream_model, requestId }),
    { health: app.routeHealth },
  );
  const inputTokens = call.tokens(result);
  const consumption = { inputTokens, outputTokens: 0, cachedTokens: 0, images: 0, audioMinutes: 0 };
  const billing = app.ledger.settle(account, costEur(consumption, candidate.route.pricing));
  const impact = environmentImpact(consumption, candidate.route.energy, candidate.providerId, candidate.provider);
  const logged = {
    model: resolved.requested,
    provider: candidate.providerId,
    route: `${candidate.providerId}/${candidate.route.upstream_model}`,
    input_tokens: inputTokens,
    eur: billing.credits,
    energy: billing.energy,
    paid_with: billing.paid_with,
    energy_kwh: impact.energy_kwh,
    carbon_g_co2: impact.carbon_g_co2,
  };
  if (options.log !== undefined) {
    // Several calls on one request (embedding batches, the rerank stage): the line carries their sum.
    const log = options.log;
    Object.assign(log, logged, {
      input_tokens: (log.input_tokens ?? 0) + inputTokens,
      eur: sumDecimalStrings(log.eur, billing.credits),
      energy: sumDecimalStrings(log.energy, billing.energy),
      energy_kwh: (log.energy_kwh ?? 0) + impact.energy_kwh,
      carbon_g_co2: (log.carbon_g_co2 ?? 0) + impact.carbon_g_co2,
    });
  } else {
    const entry: RequestLogEntry = {
      time: new Date(app.clock.now()).toISOString(),
      request_id: requestId,
      key_id: options.keyId ?? null,
      account: account.id,
      endpoint: options.endpoint,
      ...logged,
      status: 200,
      error_code: null,
      latency_ms: app.clock.now() - started,
      output_tokens: 0,
      stream: false,
    };
    app.store.requestLog.append(entry);
    // The dashboard shows it like any request (one line, the key's name).
    app.activity.recordRequest(entry);
  }
  return result;
}

/** Money stays decimal (never floats): several calls on one request add up exactly. */
function sumDecimalStrings(previous: string | undefined, next: string): string {
  return previous === undefined ? next : toDecimal(previous).plus(toDecimal(next)).toFixed();
}
