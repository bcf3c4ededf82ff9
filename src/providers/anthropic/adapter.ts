import { upstreamEvents } from '../upstream-stream.js';
import { classifyUpstreamErrorEvent, classifyUpstreamException, classifyUpstreamStatus } from '../../errors/classify-upstream.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { fromAnthropicResponse } from '../../translate/anthropic-wire/from-anthropic-response.js';
import { AnthropicStreamMapper } from '../../translate/anthropic-wire/stream-mapper.js';
import { toAnthropicRequest, type AnthropicRequestPlan } from '../../translate/anthropic-wire/to-anthropic-request.js';
import type { ChatChunk, ChatRequest, ChatResponse } from '../../translate/chat/types.js';
import type { UpstreamHttpClient } from '../http-client.js';
import { convertUsage } from '../../translate/anthropic-wire/convert-usage.js';
import type { CallContext, NativeMessageEvent, NativeMessagesResult, ProviderAdapter } from '../types.js';
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

  /** POSTs one Messages request and returns the answer, parsed; upstream faults become GatewayErrors. */
  async function postMessage(body: unknown, context: CallContext, callHeaders = headers) {
    let response;
    try {
      response = await httpClient.postJson(messagesUrl, body, { headers: callHeaders, timeoutMs: options.timeoutMs, signal: context.signal });
    } catch (error) {
      throw failure(error, context);
    }
    if (response.status < 200 || response.status >= 300) {
      throw classifyUpstreamStatus(response.status, response.text, response.headers, providerId);
    }
    if (isAnthropicErrorBody(response.json)) throw classifyUpstreamErrorEvent(response.json, providerId);
    const parsed = parseAnthropicResponse(response.json);
    if (!parsed.success || typeof response.json !== 'object' || response.json === null) {
      throw unreadable(providerId, 'message', { error: parsed.success ? 'not an object' : parsed.error, body: response.text.slice(0, 16_384) });
    }
    return { json: response.json as Record<string, unknown>, message: parsed.data };
  }

  /** The SSE events of one streaming Messages request, in Anthropic's error dialect. */
  function messageEvents(body: unknown, context: CallContext, callHeaders = headers) {
    return upstreamEvents(httpClient, messagesUrl, body, { headers: callHeaders, timeoutMs: options.timeoutMs, signal: context.signal }, {
      providerId,
      failure: (error) => failure(error, context),
      errorPayload: (text) => ({ type: 'error', error: { type: 'api_error', message: text } }),
      errorEnvelope: (parsed) => (isAnthropicErrorBody(parsed) ? classifyUpstreamErrorEvent(parsed, providerId) : undefined),
    });
  }

  return {
    kind: 'anthropic',
    id: providerId,

    /** /v1/messages pass-through: the surface body (already cleaned) goes up as is. */
    async messages(body: Record<string, unknown>, context: CallContext): Promise<NativeMessagesResult> {
      const { json, message } = await postMessage({ ...body, model: context.upstreamModel }, context, withClientHeaders(headers, context));
      return { body: json, usage: convertUsage(message.usage) };
    },

    async *messagesStream(body: Record<string, unknown>, context: CallContext): AsyncGenerator<NativeMessageEvent> {
      const events = messageEvents({ ...body, model: context.upstreamModel, stream: true }, context, withClientHeaders(headers, context));
      try {
        for (;;) {
          const step = await events.next();
          if (step.done === true) return;
          const payload = step.value.payload;
          if (isAnthropicErrorBody(payload)) throw classifyUpstreamErrorEvent(payload, providerId);
          const parsed = parseAnthropicStreamEvent(payload);
          if (!parsed.success || typeof payload !== 'object' || payload === null) throw unreadable(providerId, 'stream event', { error: parsed.success ? 'not an object' : parsed.error, payload });
          yield { type: String((payload as Record<string, unknown>)['type']), payload: payload as Record<string, unknown>, data: step.value.data };
        }
      } finally {
        await events.return({ sawDone: false });
      }
    },

    async chat(request: ChatRequest, context: CallContext): Promise<ChatResponse> {
      const { body, structuredOutputTool } = plan(request, context, false);
      const { message } = await postMessage(body, context);
      return fromAnthropicResponse(message, responseOptions(context, structuredOutputTool));
    },

    async *chatStream(request: ChatRequest, context: CallContext): AsyncGenerator<ChatChunk> {
      const { body, structuredOutputTool } = plan(request, context, true);
      const mapper = new AnthropicStreamMapper({ providerId, ...responseOptions(context, structuredOutputTool) });
      const events = messageEvents(body, context);
      try {
        for (;;) {
          const step = await events.next();
          if (step.done === true) {
            yield* mapper.end();
            return;
          }
          // The event name always equals the payload's `type`, so the payload alone is read.
          const parsed = parseAnthropicStreamEvent(step.value.payload);
          if (!parsed.success) throw unreadable(providerId, 'stream event', { error: parsed.error, payload: step.value.payload });
          // One upstream event → its hub chunks, passed on at once (no buffering).
          yield* mapper.push(parsed.data);
        }
      } finally {
        // A consumer that stops early must release the upstream socket too.
        await events.return({ sawDone: false });
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

/**
 * Pass-through only: the client's `anthropic-beta` flags go up with the body they belong to
 * (DESIGN §5). Flags the config already sets are kept, the client's are added after them.
 */
function withClientHeaders(headers: Record<string, string>, context: CallContext): Record<string, string> {
  const beta = context.passThroughHeaders?.['anthropic-beta'];
  if (beta === undefined || beta === '') return headers;
  const configured = headers['anthropic-beta'];
  if (configured === undefined || configured === '') return { ...headers, 'anthropic-beta': beta };
  const flags = [...new Set([...configured.split(','), ...beta.split(',')].map((flag) => flag.trim()).filter((flag) => flag !== ''))];
  return { ...headers, 'anthropic-beta': flags.join(',') };
}

function unreadable(providerId: string, what: string, cause: unknown): GatewayError {
  return new GatewayError('INFERENCE_3105', `Provider "${providerId}" sent a ${what} igw cannot read.`, { provider: providerId }, { cause });
}
