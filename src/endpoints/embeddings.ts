import { GatewayError } from '../errors/gateway-error.js';
import { inferenceScope, responseHeaders, type RequestCall } from '../http/request-call.js';
import { sendJson, sendJsonText } from '../http/respond.js';
import { billingFields, callWithFallback, meterCall, resolveTarget, routesServing, type InferenceScope, type Metering } from '../inference/index.js';
import type { EmbeddingsResult } from '../providers/types.js';
import { countTokens, decodeTokens } from '../tokens/tokenizer.js';
import { executeAs, type Execute, type ExecuteDeps } from './shared/execute.js';
import { embeddingsSchema } from './validation/embeddings-schema.js';
import { parseRequest } from './validation/parse.js';

/** Input as texts: strings stay, token arrays are decoded with the gateway's tokenizer. */
function inputTexts(input: string | string[] | number[] | number[][]): string[] {
  if (typeof input === 'string') return [input];
  if (input.length === 0) return [];
  if (typeof input[0] === 'number') return [decodeTokens(input as number[])];
  if (Array.isArray(input[0])) return (input as number[][]).map((tokens) => decodeTokens(tokens));
  return input as string[];
}

/** Little-endian float32 bytes, base64 (what the official SDKs decode for encoding_format=base64). */
export function encodeBase64Vector(vector: readonly number[]): string {
  const buffer = Buffer.alloc(vector.length * 4);
  vector.forEach((value, index) => buffer.writeFloatLE(value, index * 4));
  return buffer.toString('base64');
}

/** What one embeddings call produced, before it is written on any wire. */
export interface EmbeddedAnswer {
  /** The model name as the client sent it. */
  model: string;
  result: EmbeddingsResult;
  metering: Metering;
  base64: boolean;
}

/**
 * Parse → pipeline (resolve with price routing by default — :speed or preset quality override it,
 * routing/select.ts — capability checks, call with fallback over the routes that embed, meter).
 */
export async function runEmbeddings(scope: InferenceScope, raw: unknown): Promise<EmbeddedAnswer> {
  const body = parseRequest(embeddingsSchema, raw);
  const texts = inputTexts(body.input);
  if (texts.length === 0 || texts.some((text) => text === '')) {
    throw new GatewayError('VALIDATION_4005', 'input must not be empty: send a non-empty string or a non-empty array of non-empty strings.', { field: 'input' });
  }
  const target = resolveTarget(scope, body.model, ['embeddings'], { order: 'price', preset: body.preset });
  const { resolved } = target;
  const model = resolved.model;
  if (body.dimensions !== undefined) {
    if (model.capabilities.dimensions !== true) {
      throw new GatewayError('VALIDATION_4005', `Model "${resolved.id}" does not support "dimensions" (no truncation); leave it out.`, { field: 'dimensions' });
    }
    if (model.dimensions !== undefined && body.dimensions > model.dimensions) {
      throw new GatewayError('VALIDATION_4005', `dimensions must be between 1 and ${model.dimensions} for "${resolved.id}".`, { field: 'dimensions' });
    }
  }
  if (model.context_length !== undefined) {
    texts.forEach((text, index) => {
      // Cheap bound first (a token is at least one byte); tokenize only when it might not fit.
      if (Buffer.byteLength(text) <= model.context_length!) return;
      const tokens = countTokens(text);
      if (tokens > model.context_length!) {
        throw new GatewayError('INFERENCE_3207', `input[${index}] has ${tokens} tokens; "${resolved.id}" takes at most ${model.context_length}.`, {
          context_length: model.context_length,
          input_tokens: tokens,
          index,
        });
      }
    });
  }
  const request = { input: texts, ...(body.dimensions === undefined ? {} : { dimensions: body.dimensions }), ...(body.user === undefined ? {} : { user: body.user }) };
  const { result, candidate } = await callWithFallback(scope, routesServing(scope, target.candidates, 'embed', 'embeddings'), target.hints, ({ adapter, context }) => adapter.embed!(request, context));
  const metering = meterCall(scope, candidate, { inputTokens: result.promptTokens, outputTokens: 0, cachedTokens: 0, images: 0, audioMinutes: 0 });
  return { model: resolved.requested, result, metering, base64: body.encoding_format === 'base64' };
}

/** Everything of the "Embedding list" after `data`. */
function listTail(answer: EmbeddedAnswer): Record<string, unknown> {
  const { result } = answer;
  return { model: answer.model, usage: { prompt_tokens: result.promptTokens, total_tokens: result.promptTokens }, ...billingFields(answer.metering) };
}

/** The answer as the spec's "Embedding list" object (batch rows; the HTTP writer sends the same document as text when it can). */
export function embeddingsBody(answer: EmbeddedAnswer): Record<string, unknown> {
  const { result, base64 } = answer;
  return { object: 'list', data: result.vectors.map((vector, index) => ({ object: 'embedding', index, embedding: base64 ? encodeBase64Vector(vector) : vector })), ...listTail(answer) };
}

/** POST /v1/embeddings (spec "Embedding list"): parse → pipeline → writer. */
export async function handleEmbeddings(call: RequestCall): Promise<void> {
  const answer = await runEmbeddings(inferenceScope(call), call.body);
  const vectorsJson = answer.result.vectorsJson;
  if (!answer.base64 && vectorsJson !== undefined) {
    // The upstream's vector texts go out as they came (issue 18, item 3): the same document as embeddingsBody, without a float round trip.
    sendJsonText(call.response, 200, embeddingListText(vectorsJson, listTail(answer)), responseHeaders(call));
    return;
  }
  sendJson(call.response, 200, embeddingsBody(answer), responseHeaders(call));
}

/** POST /v1/embeddings without HTTP (batch rows): the same answer as {status, body}. */
export function embeddingsExecute(deps: ExecuteDeps): Execute {
  const endpoint = { path: '/v1/embeddings', scope: 'inference.embeddings' };
  return (input, principal, signal) => executeAs(deps, endpoint, principal, signal, async (scope) => embeddingsBody(await runEmbeddings(scope, input)));
}

/** `{"object":"list","data":[…],…tail}` with each embedding spliced in as JSON text. */
export function embeddingListText(vectorsJson: readonly string[], tail: Record<string, unknown>): string {
  let data = '';
  for (let index = 0; index < vectorsJson.length; index += 1) {
    data += `${index === 0 ? '' : ','}{"object":"embedding","index":${index},"embedding":${vectorsJson[index]!}}`;
  }
  return `{"object":"list","data":[${data}],${JSON.stringify(tail).slice(1)}`;
}
