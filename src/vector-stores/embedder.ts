import type { AppContext } from '../app/context.js';
import { GatewayError } from '../errors/gateway-error.js';
import { callForAccount, type AccountCallOptions } from './account-call.js';

/**
 * Inputs per embedding call; providers split further by their own cap (max_embedding_batch).
 * Small enough that local-embed (synchronous) holds the event loop for tens of milliseconds at most.
 */
export const EMBED_BATCH_SIZE = 64;

export type EmbedOptions = AccountCallOptions;

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
  const result = await callForAccount(
    app,
    accountId,
    modelId,
    {
      type: 'embeddings',
      order: 'price',
      serves: (adapter) => typeof adapter.embed === 'function',
      run: (adapter, context) => adapter.embed!({ input: texts }, context),
      tokens: (embedded) => embedded.promptTokens,
    },
    options,
  );
  if (result.vectors.length !== texts.length) throw new GatewayError('INFERENCE_3105', `The provider returned ${result.vectors.length} embeddings for ${texts.length} inputs.`);
  return result.vectors;
}
