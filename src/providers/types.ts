import type { ChatChunk, ChatRequest, ChatResponse, ChatUsage } from '../translate/chat/types.js';
import type { AbortWatch, CallerAbort } from '../util/caller-abort.js';

/**
 * The cheapest handle on a call's abort, for a stage that only watches it or hands it down: the
 * caller's CallerAbort when there is one (no AbortSignal is made for it), else the signal. One
 * accessor for a CallContext and an InferenceScope alike.
 */
export function abortWatchOf(holder: { readonly abort?: CallerAbort | undefined; readonly signal: AbortSignal }): AbortWatch {
  return holder.abort ?? holder.signal;
}

/** Per-call information an adapter needs besides the request itself. */
export interface CallContext {
  /** Aborted when the client disconnects or the gateway gives up; adapters must pass it down. */
  signal: AbortSignal;
  /**
   * The same abort without an AbortSignal made for it, when the caller has one (a live request):
   * an adapter that hands its abort to the upstream HTTP client passes this (see util/caller-abort.ts).
   */
  abort?: CallerAbort;
  /** The provider's own model id for this route (route.upstream_model). */
  upstreamModel: string;
  requestId: string;
  /** The model's configured default output budget (providers that require max_tokens use it). */
  maxOutputTokens?: number | null;
  /** Whether the model reasons (capabilities.reasoning / reasoning_type), for providers that switch it on per request. */
  reasoning?: boolean;
  /**
   * Client request headers a native pass-through forwards untouched (DESIGN §5: `anthropic-beta`
   * on /v1/messages), lower-case names. Translated calls never send them.
   */
  passThroughHeaders?: Record<string, string>;
}

export interface EmbeddingsRequest {
  input: string[];
  dimensions?: number;
  user?: string;
}

export interface EmbeddingsResult {
  /** One vector per input, in input order. */
  vectors: number[][];
  /**
   * The same vectors as JSON array texts, when the provider kept the upstream's own bytes
   * (openai-compatible/embeddings-body.ts): the embeddings endpoint splices these instead of
   * re-serialising every float (issue 18, item 3). `vectors` is then parsed only when read.
   */
  vectorsJson?: readonly string[];
  promptTokens: number;
}

export interface RerankRequest {
  query: string;
  documents: string[];
  top_n?: number;
  max_chunks_per_doc?: number;
}

export interface RerankResult {
  /** Sorted by relevance, best first; index refers to the original documents list. */
  results: Array<{ index: number; relevance_score: number }>;
  promptTokens: number;
  searchUnits: number;
}

export interface ImageRequest {
  prompt: string;
  n: number;
  size: string;
  quality?: string;
  style?: string;
  seed?: number;
  user?: string;
  /** Model-specific parameters passed through unchanged (steps, guidance, …). */
  extra: Record<string, unknown>;
}

export interface ImageResult {
  images: Array<{ b64_json: string; revised_prompt?: string }>;
}

export interface TranscriptionRequest {
  /** The upload, already on disk (a temp file under the data dir); adapters stream it, never read it whole. */
  filePath: string;
  filename: string;
  contentType: string;
  language?: string;
  temperature?: number;
  prompt?: string;
  /** `word` and/or `segment`, passed through. */
  timestampGranularities?: string[];
}

export interface TranscriptionSegment {
  id: number;
  start: number;
  end: number;
  text: string;
  [field: string]: unknown;
}

export interface TranscriptionResult {
  text: string;
  language: string | null;
  /** Seconds of audio as the upstream reports it; undefined when it does not. */
  duration: number | undefined;
  segments: TranscriptionSegment[] | undefined;
  words: Array<Record<string, unknown>> | undefined;
}

export interface NativeMessagesResult {
  body: Record<string, unknown>;
  usage: ChatUsage;
}

export interface NativeMessageEvent {
  type: string;
  payload: Record<string, unknown>;
  /** The payload's JSON text as the upstream sent it: forwarded as is when igw changes nothing. */
  data?: string;
}

/** A native /v1/responses answer (providers that speak the Responses API), with its usage in hub terms for billing. */
export interface NativeResponsesResult {
  body: Record<string, unknown>;
  usage: ChatUsage;
}

/** One event of a native Responses stream, parsed (`type` is the payload's type). */
export interface NativeResponseEvent {
  type: string;
  payload: Record<string, unknown>;
  /** The payload's JSON text as the upstream sent it: forwarded as is when igw changes nothing. */
  data?: string;
}

/**
 * The seam every provider kind implements. Adapters speak only the hub (chat types) and throw
 * GatewayError for upstream faults (classified once, raw text kept in `cause`).
 */
export interface ProviderAdapter {
  readonly kind: string;
  readonly id: string;
  chat(request: ChatRequest, context: CallContext): Promise<ChatResponse>;
  /** Yields hub chunks as they arrive; the last chunk carries usage when the upstream reports it. */
  chatStream(request: ChatRequest, context: CallContext): AsyncIterable<ChatChunk>;
  /**
   * The same stream, one batch of chunks per upstream read (issue 18 item 3): kinds whose decoder
   * can tell reads apart implement it and the pipeline's driver prefers it.
   */
  chatStreamBatches?(request: ChatRequest, context: CallContext): AsyncIterable<ChatChunk[]>;
  embed?(request: EmbeddingsRequest, context: CallContext): Promise<EmbeddingsResult>;
  rerank?(request: RerankRequest, context: CallContext): Promise<RerankResult>;
  generateImages?(request: ImageRequest, context: CallContext): Promise<ImageResult>;
  /** Speech to text (Whisper-style); always with segments when the upstream has them. */
  transcribe?(request: TranscriptionRequest, context: CallContext): Promise<TranscriptionResult>;
  /**
   * Native message-style pass-through (kinds whose wire IS the Messages API). `body` is the
   * surface body already cleaned for upstream (translate/messages/native-request.ts); the answer
   * comes back as the upstream sent it, with its usage in hub terms for billing.
   */
  messages?(body: Record<string, unknown>, context: CallContext): Promise<NativeMessagesResult>;
  /** Streaming pass-through: the upstream's events as parsed payloads (an upstream `error` event throws). */
  messagesStream?(body: Record<string, unknown>, context: CallContext): AsyncIterable<NativeMessageEvent>;
  /**
   * Native responses-style pass-through (kind `openai` with `responses_api: true`): the surface
   * body goes to `{base_url}/responses` with the route's model; the answer comes back as sent.
   */
  responses?(body: Record<string, unknown>, context: CallContext): Promise<NativeResponsesResult>;
  /** Streaming pass-through: the upstream's events as parsed payloads (an upstream `error` event throws). */
  responsesStream?(body: Record<string, unknown>, context: CallContext): AsyncIterable<NativeResponseEvent>;
  /** Releases pooled connections at shutdown. */
  close?(): Promise<void>;
}
