import { parseEventData, upstreamEvents, upstreamSseBatches, type StreamDialect } from '../upstream-stream.js';
import { classifyUpstreamException, classifyUpstreamStatus, classifyUpstreamStreamError } from '../../errors/classify-upstream.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { ChatChunk, ChatRequest, ChatResponse } from '../../translate/chat/types.js';
import { parseJsonOrUndefined, type UpstreamHttpClient, type UpstreamJsonResponse } from '../http-client.js';
import { nativeResponsesUsage } from '../../translate/responses/usage.js';
import { abortWatchOf, type CallContext, type NativeResponseEvent, type NativeResponsesResult, type EmbeddingsRequest, type EmbeddingsResult, type ImageRequest, type ImageResult, type ProviderAdapter, type RerankRequest, type RerankResult, type TranscriptionRequest, type TranscriptionResult } from '../types.js';
import { readEmbeddingsBody } from './embeddings-body.js';
import { defaultEmbeddingBatch, mergeEmbeddingResults, splitBatches } from './embeddings-batching.js';
import { normalizeImages, upstreamImagesBody } from './images.js';
import { normalizeChatResponse, normalizeEmbeddings, type NormalizeFallbacks } from './normalize.js';
import { ChunkNormalizer } from './normalize-stream.js';
import { ChunkScanner } from './scan-chunk.js';
import { normalizeRerank, upstreamRerankBody, type RerankTopField } from './rerank.js';
import { upstreamBodyForVendor, type Vendor } from './quirks.js';
import { transcribeOpenAiCompatible } from './transcribe.js';

/** The config of one provider of kind `openai` (snake_case config already mapped by the caller). */
export interface OpenAiCompatibleProviderOptions {
  id: string;
  /** Includes the version segment, e.g. `https://api.openai.com/v1`; endpoint paths are appended. */
  baseUrl: string;
  apiKey?: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Which OpenAI-compatible server this is, for its quirks (quirks.ts); default `generic`. */
  vendor?: Vendor;
  /** Most embedding inputs per upstream call (config `max_embedding_batch`); default by vendor (embeddings-batching.ts). */
  maxEmbeddingBatch?: number;
  /** The rerank body's result-count field (config `rerank_top_field`): `top_n` (default) or Voyage's `top_k`. */
  rerankTopField?: RerankTopField;
  /** The server speaks the Responses API too (config `responses_api`): native /v1/responses pass-through. */
  responsesApi?: boolean;
}

/**
 * Any OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp, LM Studio, Groq, Mistral,
 * DeepSeek, OpenRouter, …). Upstream faults reject with GatewayError; when the caller's signal
 * aborts, calls reject with `signal.reason` instead (like fetch), so the caller sees its own
 * reason rather than a provider error.
 */
export function createOpenAiCompatibleAdapter(options: OpenAiCompatibleProviderOptions, httpClient: UpstreamHttpClient): ProviderAdapter {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const origin = new URL(baseUrl).origin;
  const providerId = options.id;
  const headers = requestHeaders(options);
  const vendor = options.vendor ?? 'generic';
  const maxEmbeddingBatch = options.maxEmbeddingBatch ?? defaultEmbeddingBatch(vendor);

  const failure = (error: unknown, context: CallContext): unknown => {
    if (error instanceof GatewayError) return error;
    const abort = abortWatchOf(context);
    if (abort.aborted) return abort.reason ?? error;
    return classifyUpstreamException(error, providerId, origin);
  };

  const fallbacks = (context: CallContext): NormalizeFallbacks => ({
    providerId,
    id: `chatcmpl-${context.requestId}`,
    created: Math.floor(Date.now() / 1000),
    model: context.upstreamModel,
  });

  async function postJson(path: string, body: unknown, context: CallContext): Promise<unknown> {
    return parsedBody(await post(path, body, context, true));
  }

  /** A 2xx answer (non-2xx answers throw, classified); `parse` false leaves the body as text only. */
  async function post(path: string, body: unknown, context: CallContext, parse: boolean): Promise<UpstreamJsonResponse> {
    let response;
    try {
      response = await httpClient.postJson(`${baseUrl}${path}`, body, { headers, timeoutMs: options.timeoutMs, signal: abortWatchOf(context), ...(parse ? {} : { parseJson: false }) });
    } catch (error) {
      throw failure(error, context);
    }
    if (response.status < 200 || response.status >= 300) {
      throw classifyUpstreamStatus(response.status, response.text, response.headers, providerId);
    }
    return response;
  }

  function parsedBody(response: UpstreamJsonResponse): unknown {
    const json = response.json ?? parseJsonOrUndefined(response.text);
    if (json === undefined) {
      throw new GatewayError('INFERENCE_3105', `Provider "${providerId}" answered with a body that is not JSON.`, { provider: providerId }, {
        cause: { status: response.status, body: response.text.slice(0, 16_384) },
      });
    }
    return json;
  }

  /** POST {base_url}/responses as a stream: its events, parsed; an `error` event (or `{error}` chunk) throws. */
  async function* responsesEvents(body: Record<string, unknown>, context: CallContext): AsyncGenerator<NativeResponseEvent> {
    const events = upstreamEvents(httpClient, `${baseUrl}/responses`, { ...body, model: context.upstreamModel, stream: true }, { headers, timeoutMs: options.timeoutMs, signal: abortWatchOf(context) }, {
      providerId,
      failure: (error) => failure(error, context),
      errorPayload: (text) => ({ type: 'error', message: text }),
      errorEnvelope: (parsed) => (typeof parsed === 'object' && parsed !== null && 'error' in parsed ? classifyUpstreamStreamError(parsed, providerId) : undefined),
    });
    try {
      for (;;) {
        const step = await events.next();
        if (step.done === true) return;
        const payload = step.value.payload;
        if (typeof payload !== 'object' || payload === null) continue;
        const record = payload as Record<string, unknown>;
        // Recorded: `{type: "error", error: {...}}` (OpenAI); flat `{type: "error", code, message}` in the API reference.
        if (record['type'] === 'error' || step.value.event === 'error') throw classifyUpstreamStreamError('error' in record ? record : { error: record }, providerId);
        yield { type: String(record['type'] ?? step.value.event ?? ''), payload: record, data: step.value.data };
      }
    } finally {
      await events.return({ sawDone: false });
    }
  }

  /** Chat stream, one batch of hub chunks per upstream read (ProviderAdapter.chatStreamBatches). */
  async function* streamChatBatches(request: ChatRequest, context: CallContext): AsyncGenerator<ChatChunk[]> {
    const body = upstreamBodyForVendor(vendor, upstreamChatBody(request, context.upstreamModel, true), providerId);
    const normalizer = new ChunkNormalizer(fallbacks(context));
    const scanner = new ChunkScanner();
    const dialect: StreamDialect = {
      providerId,
      failure: (error) => failure(error, context),
      // The normalizer classifies `{error}` payloads.
      errorPayload: (text) => ({ error: { message: text } }),
      errorEnvelope: (parsed) => (typeof parsed === 'object' && parsed !== null && 'error' in parsed ? classifyUpstreamStreamError(parsed, providerId) : undefined),
    };
    const batches = upstreamSseBatches(httpClient, `${baseUrl}/chat/completions`, body, { headers, timeoutMs: options.timeoutMs, signal: abortWatchOf(context) }, dialect);
    try {
      for (;;) {
        const step = await batches.next();
        if (step.done === true) {
          const last = normalizer.end(step.value.sawDone);
          if (last.length > 0) yield last;
          return;
        }
        // One upstream read → the hub chunks of its events, passed on at once (no buffering);
        // an event that is not JSON, or that the normalizer refuses, ends the stream after the
        // chunks before it. A plain text chunk is read by the scanner instead of JSON.parse, and
        // its hub chunk carries its JSON text (issue 18 item 3); any other event is parsed whole.
        const chunks: ChatChunk[] = [];
        let broken: unknown;
        for (const event of step.value) {
          try {
            const scanned = event.event === undefined ? scanner.scan(event.data) : undefined;
            if (scanned !== undefined) chunks.push(...normalizer.pushScanned(scanned));
            else chunks.push(...normalizer.push(parseEventData(event.data, event.event, dialect), event.event));
          } catch (error) {
            broken = error;
            break;
          }
        }
        if (chunks.length > 0) yield chunks;
        if (broken !== undefined) throw broken;
      }
    } finally {
      // A consumer that stops early must release the upstream socket too.
      await batches.return({ sawDone: false });
    }
  }

  const nativeResponses: Pick<ProviderAdapter, 'responses' | 'responsesStream'> =
    options.responsesApi === true
      ? {
          async responses(body: Record<string, unknown>, context: CallContext): Promise<NativeResponsesResult> {
            const json = (await postJson('/responses', { ...body, model: context.upstreamModel, stream: false }, context)) as Record<string, unknown>;
            return { body: json, usage: nativeResponsesUsage(json['usage']) };
          },
          responsesStream: responsesEvents,
        }
      : {};

  return {
    kind: 'openai',
    id: providerId,
    ...nativeResponses,

    async chat(request: ChatRequest, context: CallContext): Promise<ChatResponse> {
      const body = upstreamBodyForVendor(vendor, upstreamChatBody(request, context.upstreamModel, false), providerId);
      return normalizeChatResponse(await postJson('/chat/completions', body, context), fallbacks(context));
    },

    chatStreamBatches: streamChatBatches,

    async *chatStream(request: ChatRequest, context: CallContext): AsyncGenerator<ChatChunk> {
      for await (const chunks of streamChatBatches(request, context)) yield* chunks;
    },

    transcribe(request: TranscriptionRequest, context: CallContext): Promise<TranscriptionResult> {
      return transcribeOpenAiCompatible(httpClient, { providerId, baseUrl, headers, timeoutMs: options.timeoutMs, failure }, request, context);
    },

    async embed(request: EmbeddingsRequest, context: CallContext): Promise<EmbeddingsResult> {
      // One upstream call per batch (one in all unless the provider caps it), in input order.
      const results: EmbeddingsResult[] = [];
      for (const input of splitBatches(request.input, maxEmbeddingBatch)) {
        const body: Record<string, unknown> = { model: context.upstreamModel, input, encoding_format: 'float' };
        if (request.dimensions !== undefined) body['dimensions'] = request.dimensions;
        if (request.user !== undefined) body['user'] = request.user;
        const response = await post('/embeddings', body, context, false);
        // The vectors stay the upstream's text when the body reads plainly (embeddings-body.ts); else the full parse judges it.
        results.push(readEmbeddingsBody(response.text, input.length) ?? normalizeEmbeddings(parsedBody(response), input.length, providerId));
      }
      return mergeEmbeddingResults(results);
    },

    async rerank(request: RerankRequest, context: CallContext): Promise<RerankResult> {
      return normalizeRerank(await postJson('/rerank', upstreamRerankBody(request, context.upstreamModel, options.rerankTopField), context), request, providerId);
    },

    async generateImages(request: ImageRequest, context: CallContext): Promise<ImageResult> {
      return normalizeImages(await postJson('/images/generations', upstreamImagesBody(request, context.upstreamModel), context), providerId);
    },
  };
}

/**
 * The hub request as the upstream body: the client's unknown top-level fields (the same wire,
 * forwarded untouched: DESIGN §5), the route's model, our stream flag, no undefined fields.
 * Streams always ask for usage (`stream_options.include_usage`) so they are metered.
 */
export function upstreamChatBody(request: ChatRequest, upstreamModel: string, stream: boolean): Record<string, unknown> {
  // Fields igw does not know go first, so a known field of the same name keeps igw's value.
  const body: Record<string, unknown> = { ...request.unknown_fields };
  for (const [key, value] of Object.entries(request)) {
    if (value !== undefined && key !== 'unknown_fields') body[key] = value;
  }
  body['model'] = upstreamModel;
  body['stream'] = stream;
  if (stream) {
    const requested = request.stream_options ?? {};
    body['stream_options'] = { ...requested, include_usage: true };
  } else {
    // OpenAI rejects stream_options on a non-stream request.
    delete body['stream_options'];
  }
  return body;
}

function requestHeaders(options: OpenAiCompatibleProviderOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.headers)) headers[name.toLowerCase()] = value;
  if (options.apiKey !== undefined && options.apiKey !== '') headers['authorization'] = `Bearer ${options.apiKey}`;
  return headers;
}

