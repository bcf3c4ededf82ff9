import { GatewayError } from '../errors/gateway-error.js';
import { responseHeaders, timeUpstream, type RequestCall } from '../http/request-call.js';
import { sendJson, sendJsonText } from '../http/respond.js';
import { tryRoutes } from '../routing/fallback.js';
import { countTokens, decodeTokens } from '../tokens/tokenizer.js';
import { meterCall } from './shared/metering.js';
import { fallbackOptions, prepareInference, routesServing } from './shared/resolve.js';
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

/** POST /v1/embeddings (spec "Embedding list"); price routing by default, :speed / preset quality override. */
export async function handleEmbeddings(call: RequestCall): Promise<void> {
  const body = parseRequest(embeddingsSchema, call.body);
  const texts = inputTexts(body.input);
  if (texts.length === 0 || texts.some((text) => text === '')) {
    throw new GatewayError('VALIDATION_4005', 'input must not be empty: send a non-empty string or a non-empty array of non-empty strings.', { field: 'input' });
  }
  // Spec: price routing by default; :speed or preset quality override it (routing/select.ts).
  const { resolved, candidates } = prepareInference(call, body.model, ['embeddings'], { order: 'price', preset: body.preset });
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
  const { result, candidate } = await tryRoutes(routesServing(call, candidates, 'embed', 'embeddings'), call.signal, (route) => {
    const adapter = call.app.providers.get(route.providerId);
    if (adapter.embed === undefined) throw new GatewayError('INFERENCE_3104', `Provider "${route.providerId}" does not serve embeddings.`);
    return timeUpstream(call, () =>
      adapter.embed!(
        { input: texts, ...(body.dimensions === undefined ? {} : { dimensions: body.dimensions }), ...(body.user === undefined ? {} : { user: body.user }) },
        { signal: call.signal, upstreamModel: route.route.upstream_model, requestId: call.requestId },
      ),
    );
  }, fallbackOptions(call));
  const metering = meterCall(call, candidate, { inputTokens: result.promptTokens, outputTokens: 0, cachedTokens: 0, images: 0, audioMinutes: 0 });
  const base64 = body.encoding_format === 'base64';
  const tail = { model: resolved.requested, usage: { prompt_tokens: result.promptTokens, total_tokens: result.promptTokens }, environment_impact: metering.environment_impact, billing_cost: metering.billing_cost };
  if (!base64 && result.vectorsJson !== undefined) {
    // The upstream's vector texts go out as they came (issue 18, item 3): the same document as below, without a float round trip.
    sendJsonText(call.response, 200, embeddingListText(result.vectorsJson, tail), responseHeaders(call));
    return;
  }
  sendJson(
    call.response,
    200,
    { object: 'list', data: result.vectors.map((vector, index) => ({ object: 'embedding', index, embedding: base64 ? encodeBase64Vector(vector) : vector })), ...tail },
    responseHeaders(call),
  );
}

/** `{"object":"list","data":[…],…tail}` with each embedding spliced in as JSON text. */
export function embeddingListText(vectorsJson: readonly string[], tail: Record<string, unknown>): string {
  let data = '';
  for (let index = 0; index < vectorsJson.length; index += 1) {
    data += `${index === 0 ? '' : ','}{"object":"embedding","index":${index},"embedding":${vectorsJson[index]!}}`;
  }
  return `{"object":"list","data":[${data}],${JSON.stringify(tail).slice(1)}`;
}
