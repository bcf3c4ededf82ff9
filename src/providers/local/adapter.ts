import { randomBytes } from 'node:crypto';
import { GatewayError } from '../../errors/gateway-error.js';
import { countTokens } from '../../tokens/tokenizer.js';
import type { ChatChunk, ChatRequest, ChatResponse } from '../../translate/chat/types.js';
import type {
  CallContext,
  EmbeddingsRequest,
  EmbeddingsResult,
  ImageRequest,
  ImageResult,
  ProviderAdapter,
  RerankRequest,
  RerankResult,
} from '../types.js';
import { bm25Rerank } from './bm25-rerank.js';
import { echoChatChunks, echoChatResponse, type EchoIdentity } from './echo-chat.js';
import { embedText } from './hash-embed.js';
import { MAX_PNG_SIDE, renderPng } from './png-image.js';

/**
 * The built-in `local` provider kind (DESIGN §3): plain, deterministic algorithms behind the
 * same seam as real providers, so every endpoint works offline and in CI. Each method serves
 * exactly one upstream model; any other model name is a provider-side error, as a real
 * upstream would answer "model not found".
 */

const LOCAL_MODELS = {
  chat: 'local-echo',
  embed: 'local-embed',
  rerank: 'local-rerank',
  image: 'local-image',
} as const;

export function createLocalAdapter(id: string): ProviderAdapter {
  return {
    kind: 'local',
    id,

    async chat(request: ChatRequest, context: CallContext): Promise<ChatResponse> {
      requireModel(context, LOCAL_MODELS.chat, id);
      return echoChatResponse(request, newIdentity(request));
    },

    async *chatStream(request: ChatRequest, context: CallContext): AsyncIterable<ChatChunk> {
      requireModel(context, LOCAL_MODELS.chat, id);
      for (const chunk of echoChatChunks(request, newIdentity(request))) {
        // The client went away (or the gateway gave up): stop producing, quietly.
        if (context.signal.aborted) return;
        yield chunk;
      }
    },

    async embed(request: EmbeddingsRequest, context: CallContext): Promise<EmbeddingsResult> {
      requireModel(context, LOCAL_MODELS.embed, id);
      return {
        vectors: request.input.map((text) => embedText(text, request.dimensions)),
        promptTokens: request.input.reduce((sum, text) => sum + countTokens(text), 0),
      };
    },

    async rerank(request: RerankRequest, context: CallContext): Promise<RerankResult> {
      requireModel(context, LOCAL_MODELS.rerank, id);
      return bm25Rerank(request);
    },

    async generateImages(request: ImageRequest, context: CallContext): Promise<ImageResult> {
      requireModel(context, LOCAL_MODELS.image, id);
      const { width, height } = parseSize(request.size);
      const images: ImageResult['images'] = [];
      for (let index = 0; index < request.n; index++) {
        if (context.signal.aborted) throw new GatewayError('INFERENCE_3105', 'Image generation was cancelled.', { provider: id }, { cause: context.signal.reason });
        const png = await renderPng({ prompt: request.prompt, width, height, seed: request.seed, index });
        images.push({ b64_json: png.toString('base64') });
      }
      return { images };
    },
  };
}

function requireModel(context: CallContext, expected: string, providerId: string): void {
  if (context.upstreamModel === expected) return;
  const known = Object.values(LOCAL_MODELS).includes(context.upstreamModel as (typeof LOCAL_MODELS)[keyof typeof LOCAL_MODELS]);
  const message = known
    ? `The local model "${context.upstreamModel}" does not serve this endpoint; use "${expected}".`
    : `The local provider has no model "${context.upstreamModel}"; its models are ${Object.values(LOCAL_MODELS).join(', ')}.`;
  throw new GatewayError('INFERENCE_3105', message, { provider: providerId, upstream_model: context.upstreamModel });
}

function newIdentity(request: ChatRequest): EchoIdentity {
  return { id: `chatcmpl-${randomBytes(12).toString('hex')}`, created: Math.floor(Date.now() / 1000), model: request.model };
}

/** "WxH" within the renderer's limits; anything else is the caller's mistake. */
function parseSize(size: string): { width: number; height: number } {
  const match = /^(\d{1,5})x(\d{1,5})$/.exec(size);
  const width = Number(match?.[1]);
  const height = Number(match?.[2]);
  if (match === null || width < 1 || height < 1 || width > MAX_PNG_SIDE || height > MAX_PNG_SIDE) {
    throw new GatewayError('VALIDATION_4005', `size must be "WIDTHxHEIGHT" with sides from 1 to ${MAX_PNG_SIDE}, e.g. "1024x1024".`, { field: 'size' });
  }
  return { width, height };
}
