import { GatewayError } from '../errors/gateway-error.js';
import { callWithFallback, meterCall, resolveTarget, routesServing } from '../inference/index.js';
import { callForAccount, type InternalCallDeps, type InternalCallOptions } from './internal-call.js';

/**
 * Inputs per embedding call; providers split further by their own cap (max_embedding_batch).
 * Small enough that local-embed (synchronous) holds the event loop for tens of milliseconds at most.
 */
export const EMBED_BATCH_SIZE = 64;

export type EmbedOptions = InternalCallOptions;

/**
 * Embeds texts with a store's model through the pipeline stages of POST /v1/embeddings (price
 * order, route health, the routes that embed, ledger preflight and settlement, impact), for work
 * that runs off the request path (ingestion) or on behalf of another endpoint (search, file_search).
 */
export async function embedTexts(deps: InternalCallDeps, accountId: string, modelId: string, texts: readonly string[], options: EmbedOptions): Promise<number[][]> {
  const vectors: number[][] = [];
  for (let offset = 0; offset < texts.length; offset += EMBED_BATCH_SIZE) {
    vectors.push(...(await embedBatch(deps, accountId, modelId, texts.slice(offset, offset + EMBED_BATCH_SIZE), options)));
  }
  return vectors;
}

async function embedBatch(deps: InternalCallDeps, accountId: string, modelId: string, texts: string[], options: EmbedOptions): Promise<number[][]> {
  const vectors = await callForAccount(deps, accountId, options, async (scope) => {
    const target = resolveTarget(scope, modelId, ['embeddings'], { order: 'price' });
    const { result, candidate } = await callWithFallback(scope, routesServing(scope, target.candidates, 'embed', 'embeddings'), target.hints, ({ adapter, context }) =>
      adapter.embed!({ input: texts }, context),
    );
    meterCall(scope, candidate, { inputTokens: result.promptTokens, outputTokens: 0, cachedTokens: 0, images: 0, audioMinutes: 0 });
    return result.vectors;
  });
  // Checked once the call is billed and logged: the provider did the work either way.
  if (vectors.length !== texts.length) throw new GatewayError('INFERENCE_3105', `The provider returned ${vectors.length} embeddings for ${texts.length} inputs.`);
  return vectors;
}
