import { GatewayError } from '../errors/gateway-error.js';
import { callWithFallback, meterCall, resolveTarget, routesServing } from '../inference/index.js';
import { callForAccount, type InternalCallDeps, type InternalCallOptions } from './internal-call.js';

/**
 * Inputs per embedding call; providers split further by their own cap (max_embedding_batch).
 * Small enough that local-embed (synchronous) holds the event loop for tens of milliseconds at most.
 */
export const EMBED_BATCH_SIZE = 64;

export type EmbedOptions = InternalCallOptions;

/** resolveTarget's arguments, the same on every call: made once, not per call (frozen: nothing may change them). */
const EMBEDDINGS: readonly ['embeddings'] = Object.freeze(['embeddings'] as const);
const BY_PRICE = Object.freeze({ order: 'price' } as const);

/**
 * Embeds texts with a store's model through the pipeline stages of POST /v1/embeddings (price
 * order, route health, the routes that embed, ledger preflight and settlement, impact), for work
 * that runs off the request path (ingestion) or on behalf of another endpoint (search, file_search).
 */
export function embedTexts(deps: InternalCallDeps, accountId: string, modelId: string, texts: readonly string[], options: EmbedOptions): Promise<number[][]> {
  // One batch (a search query, a small file): its promise is the answer, with no copy of the
  // inputs or the vectors and no async frame around it (issue 16).
  if (texts.length <= EMBED_BATCH_SIZE) return embedBatch(deps, accountId, modelId, texts, options);
  return embedBatches(deps, accountId, modelId, texts, options);
}

async function embedBatches(deps: InternalCallDeps, accountId: string, modelId: string, texts: readonly string[], options: EmbedOptions): Promise<number[][]> {
  const vectors: number[][] = [];
  for (let offset = 0; offset < texts.length; offset += EMBED_BATCH_SIZE) {
    vectors.push(...(await embedBatch(deps, accountId, modelId, texts.slice(offset, offset + EMBED_BATCH_SIZE), options)));
  }
  return vectors;
}

async function embedBatch(deps: InternalCallDeps, accountId: string, modelId: string, texts: readonly string[], options: EmbedOptions): Promise<number[][]> {
  const vectors = await callForAccount(deps, accountId, options, async (scope) => {
    const target = resolveTarget(scope, modelId, EMBEDDINGS, BY_PRICE);
    const { result, candidate } = await callWithFallback(scope, routesServing(scope, target.candidates, 'embed', 'embeddings'), target.hints, ({ adapter, context }) =>
      // Adapters only read `input` (none changes a request); the caller's array goes as is.
      adapter.embed!({ input: texts as string[] }, context),
    );
    meterCall(scope, candidate, { inputTokens: result.promptTokens, outputTokens: 0, cachedTokens: 0, images: 0, audioMinutes: 0 });
    return result.vectors;
  });
  // Checked once the call is billed and logged: the provider did the work either way.
  if (vectors.length !== texts.length) throw new GatewayError('INFERENCE_3105', `The provider returned ${vectors.length} embeddings for ${texts.length} inputs.`);
  return vectors;
}
