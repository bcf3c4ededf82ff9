import { classifyUpstreamErrorEvent, classifyUpstreamException, classifyUpstreamStatus } from '../../errors/classify-upstream.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { fromAnthropicResponse } from '../../translate/anthropic-wire/from-anthropic-response.js';
import { AnthropicStreamMapper } from '../../translate/anthropic-wire/stream-mapper.js';
import { toAnthropicRequest, type AnthropicRequestPlan } from '../../translate/anthropic-wire/to-anthropic-request.js';
import type { ChatChunk, ChatRequest, ChatResponse } from '../../translate/chat/types.js';
import type { UpstreamHttpClient } from '../http-client.js';
import { decodeSse } from '../sse-decode.js';
import type { CallContext, ProviderAdapter } from '../types.js';
import { isAnthropicErrorBody, parseAnthropicResponse, parseAnthropicStreamEvent } from './wire.js';

/** The API version igw speaks; every request carries it (Anthropic requires the header). */
export const ANTHROPIC_VERSION = '2023-06-01';

/** The config of one provider of kind `anthropic`. */
export interface AnthropicProviderOptions {
  id: string;
  /** Includes the version segment, e.g. `https://api.anthropic.com/v1`; `/messages` is appended. */
  baseUrl: string;
  apiKey?: string | undefined;
  headers: Record<string, string>;
  timeoutMs: number;
}

/** Model facts the Messages request needs, carried on CallContext (max_tokens is required there; thinking only on reasoning models). */
export type AnthropicModelHints = Pick<CallContext, 'maxOutputTokens' | 'reasoning'>;

/**
 * Anthropic's native Messages API (`POST {base_url}/messages`), translated to and from the hub
 * by translate/anthropic-wire. Upstream faults reject with GatewayError; when the caller's
 * signal aborts, calls reject with `signal.reason` instead (like fetch).
 */
export function createAnthropicAdapter(options: AnthropicProviderOptions, httpClient: UpstreamHttpClient): ProviderAdapter {
  const messagesUrl = `${options.baseUrl.replace(/\/+$/, '')}/messages`;
  const origin = new URL(messagesUrl).origin;
  const providerId = options.id;
  const headers = requestHeaders(options);

  const failure = (error: unknown, context: CallContext): unknown => {
    if (error instanceof GatewayError) return error;
    if (context.signal.aborted) return context.signal.reason ?? error;
    return classifyUpstreamException(error, providerId, origin);
  };

  const plan = (request: ChatRequest, context: CallContext, stream: boolean): AnthropicRequestPlan => {
    return toAnthropicRequest(request, { model: context.upstreamModel, stream, maxOutputTokens: context.maxOutputTokens, reasoning: context.reasoning ?? true });
  };

  const responseOptions = (context: CallContext, structuredOutputTool: string | undefined) => ({
    created: Math.floor(Date.now() / 1000),
    fallbackId: `chatcmpl-${context.requestId}`,
    fallbackModel: context.upstreamModel,
    structuredOutputTool,
  });

  return {
    kind: 'anthropic',
    id: providerId,

    async chat(request: ChatRequest, context: CallContext): Promise<ChatResponse> {
      const { body, structuredOutputTool } = plan(request, context, false);
      let response;
      try {
        response = await httpClient.postJson(messagesUrl, body, { headers, timeoutMs: options.timeoutMs, signal: context.signal });
      } catch (error) {
        throw failure(error, context);
      }
      if (response.status < 200 || response.status >= 300) {
        throw classifyUpstreamStatus(response.status, response.text, response.headers, providerId);
      }
      if (isAnthropicErrorBody(response.json)) throw classifyUpstreamErrorEvent(response.json, providerId);
      const parsed = parseAnthropicResponse(response.json);
      if (!parsed.success) throw unreadable(providerId, 'message', { error: parsed.error, body: response.text.slice(0, 16_384) });
      return fromAnthropicResponse(parsed.data, responseOptions(context, structuredOutputTool));
    },

    async *chatStream(request: ChatRequest, context: CallContext): AsyncGenerator<ChatChunk> {
      const { body, structuredOutputTool } = plan(request, context, true);
      let response;
      try {
        response = await httpClient.postStream(messagesUrl, body, { headers, timeoutMs: options.timeoutMs, signal: context.signal });
      } catch (error) {
        throw failure(error, context);
      }
      if (response.text !== undefined) {
        throw classifyUpstreamStatus(response.status, response.text, response.headers, providerId);
      }
      if ((response.headers['content-type'] ?? '').includes('application/json')) {
        throw await nonStreamAnswer(response.body, providerId);
      }
      const mapper = new AnthropicStreamMapper({ providerId, ...responseOptions(context, structuredOutputTool) });
      const events = decodeSse(response.body);
      try {
        for (;;) {
          let step;
          try {
            step = await events.next();
          } catch (error) {
            throw failure(error, context);
          }
          if (step.done === true) {
            yield* mapper.end();
            return;
          }
          // The event name always equals the payload's `type`, so the payload alone is read.
          const parsed = parseAnthropicStreamEvent(parseEventData(step.value.data, step.value.event, providerId));
          if (!parsed.success) throw unreadable(providerId, 'stream event', { error: parsed.error, data: step.value.data.slice(0, 16_384) });
          // One upstream event → its hub chunks, passed on at once (no buffering).
          yield* mapper.push(parsed.data);
        }
      } finally {
        // Stopping early (consumer gone, error) releases the upstream socket.
        await events.return({ sawDone: false }).catch(() => undefined);
      }
    },
  };
}

/**
 * Configured headers first, then the ones igw owns: `x-api-key` from api_key, and the API
 * version unless the config pins another one.
 */
function requestHeaders(options: AnthropicProviderOptions): Record<string, string> {
  const headers: Record<string, string> = { 'anthropic-version': ANTHROPIC_VERSION };
  for (const [name, value] of Object.entries(options.headers)) headers[name.toLowerCase()] = value;
  if (options.apiKey !== undefined && options.apiKey !== '') headers['x-api-key'] = options.apiKey;
  return headers;
}

/** Anthropic pads some `data:` JSON with spaces (stream-tool-use-padded.sse); JSON.parse allows that. */
function parseEventData(data: string, event: string | undefined, providerId: string): unknown {
  try {
    return JSON.parse(data) as unknown;
  } catch (error) {
    // An `event: error` is an error whatever its data looks like.
    if (event === 'error') return { type: 'error', error: { type: 'api_error', message: data.slice(0, 1_000) } };
    throw new GatewayError('INFERENCE_3105', `Provider "${providerId}" sent a stream event that is not valid JSON.`, { provider: providerId }, {
      cause: { error, data: data.slice(0, 16_384) },
    });
  }
}

function unreadable(providerId: string, what: string, cause: unknown): GatewayError {
  return new GatewayError('INFERENCE_3105', `Provider "${providerId}" sent a ${what} igw cannot read.`, { provider: providerId }, { cause });
}

/** A 2xx JSON body where a stream was asked for: an error envelope, or a server that ignores `stream`. */
async function nonStreamAnswer(body: AsyncIterable<Uint8Array>, providerId: string): Promise<GatewayError> {
  const parts: Buffer[] = [];
  for await (const part of body) parts.push(Buffer.from(part));
  const text = Buffer.concat(parts).toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (isAnthropicErrorBody(parsed)) return classifyUpstreamErrorEvent(parsed, providerId);
  return new GatewayError('INFERENCE_3105', `Provider "${providerId}" answered a streaming request with a non-stream body.`, { provider: providerId }, {
    cause: { body: text.slice(0, 16_384) },
  });
}
