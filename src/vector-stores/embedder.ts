import type { AppContext } from '../app/context.js';
import { environmentImpact } from '../billing/energy.js';
import { toDecimal } from '../billing/money.js';
import { costEur } from '../billing/price.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { CallLog } from '../http/request-call.js';
import type { ProviderAdapter } from '../providers/types.js';
import { tryRoutes } from '../routing/fallback.js';
import { routeKey } from '../routing/health.js';
import { selectRoutes } from '../routing/select.js';

/**
 * Inputs per embedding call; providers split further by their own cap (max_embedding_batch).
 * Small enough that local-embed (synchronous) holds the event loop for tens of milliseconds at most.
 */
export const EMBED_BATCH_SIZE = 64;

export interface EmbedOptions {
  signal?: AbortSignal;
  /** The request-log line of the HTTP call this embedding belongs to; without one, a line of its own is written. */
  log?: CallLog;
  /** What the request-log line says (`endpoint` column) when the embedding has no call of its own. */
  endpoint: string;
}

/**
 * Embeds texts with a store's model through the same routing, fallback and billing as
 * POST /v1/embeddings (price order, route health, ledger preflight and settlement), for work that
 * runs off the request path (ingestion) or on behalf of another endpoint (search, file_search).
 */
export async function embedTexts(app: AppContext, accountId: string, modelId: string, texts: readonly string[], options: EmbedOptions): Promise<number[][]> {
  const vectors: number[][] = [];
  for (let offset = 0; offset < texts.length; offset += EMBED_BATCH_SIZE) {
    vectors.push(...(await embedBatch(app, accountId, modelId, texts.slice(offset, offset + EMBED_BATCH_SIZE), options)));
  }
  return vectors;
}

async function embedBatch(app: AppContext, accountId: string, modelId: string, texts: string[], options: EmbedOptions): Promise<number[][]> {
  const started = app.clock.now();
  const account = app.store.accounts.get(accountId);
  if (account === undefined) throw new GatewayError('AUTH_1008', `Account "${accountId}" no longer exists.`);
  const { name: planName, plan } = app.ledger.plan(account);
  const resolved = app.catalog.resolve(modelId, plan, planName, ['embeddings']);
  const candidates = selectRoutes(resolved.model, resolved.flavor, app.config.providers, {
    order: 'price',
    health: app.routeHealth.snapshotOf(resolved.model.routes.map((route) => routeKey({ providerId: route.provider, route }))),
  }).filter((candidate) => {
    try {
      return typeof (app.providers.get(candidate.providerId) as ProviderAdapter).embed === 'function';
    } catch {
      return false;
    }
  });
  if (candidates.length === 0) throw new GatewayError('INFERENCE_3104', `No provider of "${modelId}" serves embeddings.`);
  app.ledger.preflight(account);
  const signal = options.signal ?? new AbortController().signal;
  const requestId = app.ids.next('req_');
  const { result, candidate } = await tryRoutes(
    candidates,
    signal,
    (route) => app.providers.get(route.providerId).embed!({ input: texts }, { signal, upstreamModel: route.route.upstream_model, requestId }),
    { health: app.routeHealth },
  );
  if (result.vectors.length !== texts.length) throw new GatewayError('INFERENCE_3105', `The provider returned ${result.vectors.length} embeddings for ${texts.length} inputs.`);
  const consumption = { inputTokens: result.promptTokens, outputTokens: 0, cachedTokens: 0, images: 0, audioMinutes: 0 };
  const billing = app.ledger.settle(account, costEur(consumption, candidate.route.pricing));
  const impact = environmentImpact(consumption, candidate.route.energy, candidate.providerId, candidate.provider);
  const logged = {
    model: resolved.requested,
    provider: candidate.providerId,
    route: `${candidate.providerId}/${candidate.route.upstream_model}`,
    input_tokens: result.promptTokens,
    eur: billing.credits,
    energy: billing.energy,
    paid_with: billing.paid_with,
    energy_kwh: impact.energy_kwh,
    carbon_g_co2: impact.carbon_g_co2,
  };
  if (options.log !== undefined) {
    // Several batches on one call: the line carries their sum.
    const log = options.log;
    const previousTokens = log.input_tokens ?? 0;
    Object.assign(log, logged, {
      input_tokens: previousTokens + result.promptTokens,
      eur: sumDecimalStrings(log.eur, billing.credits),
      energy: sumDecimalStrings(log.energy, billing.energy),
      energy_kwh: (log.energy_kwh ?? 0) + impact.energy_kwh,
      carbon_g_co2: (log.carbon_g_co2 ?? 0) + impact.carbon_g_co2,
    });
  } else {
    app.store.requestLog.append({
      time: new Date(app.clock.now()).toISOString(),
      request_id: requestId,
      key_id: null,
      account: account.id,
      endpoint: options.endpoint,
      ...logged,
      status: 200,
      error_code: null,
      latency_ms: app.clock.now() - started,
      output_tokens: 0,
      stream: false,
    });
  }
  return result.vectors;
}

/** Money stays decimal (never floats): several batches on one call add up exactly. */
function sumDecimalStrings(previous: string | undefined, next: string): string {
  return previous === undefined ? next : toDecimal(previous).plus(toDecimal(next)).toFixed();
}
