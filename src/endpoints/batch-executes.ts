import type { BatchEndpoint } from '../batches/batch-record.js';
import { chatCompletionsExecute, type ChatExecuteDeps } from './chat-completions-execute.js';
import { embeddingsExecute } from './embeddings.js';
import { imageGenerationsExecute, type ImagesEnv } from './images.js';
import type { Execute } from './shared/execute.js';

/** Each batchable endpoint's `execute`, for the batch runner (wired by the composition root). */
export function batchExecutes(deps: ChatExecuteDeps & ImagesEnv): Record<BatchEndpoint, Execute> {
  return {
    '/v1/chat/completions': chatCompletionsExecute(deps),
    '/v1/embeddings': embeddingsExecute(deps),
    '/v1/images/generations': imageGenerationsExecute(deps),
  };
}
