import type { Consumption } from '../billing/price.js';
import type { Config } from '../config/load.js';
import { GatewayError, isGatewayError } from '../errors/gateway-error.js';
import { renderError } from '../errors/render.js';
import { responseHeaders, timeUpstream, type RequestCall } from '../http/request-call.js';
import { sendJson } from '../http/respond.js';
import { SseWriter } from '../http/sse.js';
import type { CallContext, NativeMessageEvent, NativeMessagesResult } from '../providers/types.js';
import { tryRoutes } from '../routing/fallback.js';
import type { CandidateRoute } from '../routing/select.js';
import { countChatPromptTokens, countTokens } from '../tokens/tokenizer.js';
import { convertUsage, mergeUsage } from '../translate/anthropic-wire/convert-usage.js';
import type { AnthropicUsage } from '../translate/anthropic-wire/types.js';
import { makeUsage, type ChatChunk, type ChatRequest, type ChatResponse, type ChatUsage } from '../translate/chat/types.js';
import { chatToMessages } from '../translate/messages/chat-to-messages.js';
import { messagesToChat } from '../translate/messages/messages-to-chat.js';
import { toNativeMessagesBody } from '../translate/messages/native-request.js';
import type { MessagesErrorBody, MessagesRequest } from '../translate/messages/types.js';
import { ChatToMessageEvents } from '../translate/stream/chat-to-message-events.js';
import { countMessagesInputTokens, requireCompatVersion } from './messages-count-tokens.js';
import { checkChatCapabilities } from '../inference/preflight.js';
import { inlineImageUrls } from './shared/inline-images.js';
import { meterCall } from './shared/metering.js';
import { fallbackOptions, prepareInference } from './shared/resolve.js';
import { messagesSchema, parseMessagesBody, toMessagesRequest } from './validation/messages-schema.js';
import { IgnoredParams } from './shared/ignored-params.js';
import { planMessagesTranslation } from '../translate/messages/translation-plan.js';
import { applyBlueprintFields } from '../blueprints/chat.js';
import { blueprintAccess } from './shared/blueprint-access.js';
import { ChunkGuard, guardCompletion } from '../blueprints/guard-output.js';
import { splitBlueprintFields, usesBlueprints } from '../blueprints/load.js';
import { sendDirectMessage } from '../blueprints/messages.js';
import type { OutputGuard } from '../blueprints/output-guard.js';

/**
 * Spec model mapping: a model string containing (case-insensitive) a tier name runs that tier's
 * configured model (config.message_tiers); any other string is a catalog model id, used as is.
 * An exact catalog id wins, so a model whose own id contains a tier name stays reachable.
 */
export function mapMessagesModel(requested: string, config: Pick<Config, 'message_tiers' | 'models'>): string {
  if (config.models[requested] !== undefined) return requested;
  const lower = requested.toLowerCase();
  // Longest tier name first, so "opus-max" wins over "opus" when both are configured.
  const tiers = Object.entries(config.message_tiers).sort(([a], [b]) => b.length - a.length);
  for (const [tier, modelId] of tiers) if (lower.includes(tier.toLowerCase())) return modelId;
  return requested;
}

/** An image problem found on the hub request, re-worded to name the client's block (messages[i].content[j]). */
function renamedImageField(error: unknown, imageFields: ReadonlyMap<string, string>): unknown {
  if (!isGatewayError(error) || typeof error.details?.['field'] !== 'string') return error;
  const hubField = error.details['field'];
  const block = imageFields.get(hubField);
  if (block === undefined) return error;
  const field = `${block}.source`;
  return new GatewayError(error.code, `Invalid content block ${block}: ${error.message.split(`"${hubField}"`).join(`"${field}"`)}`, { ...error.details, field, block }, { cause: error.cause });
}

function consumptionOf(usage: ChatUsage): Consumption {
  return { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens, cachedTokens: usage.cached_tokens, images: 0, audioMinutes: 0 };
}

/**
 * POST /v1/messages (spec "POST /v1/messages"). Per route: a provider that speaks the Messages
 * API natively gets the client's body as sent (pass-through, unknown fields and the
 * `anthropic-beta` header included); any other goes through the chat hub, where the fields the
 * hub cannot carry are dropped and named in `igw-ignored-params`, or refused by name when their
 * loss would change the answer (DESIGN §5, translation-plan.ts). Fallback may cross kinds.
 */
export async function handleMessages(call: RequestCall): Promise<void> {
  requireCompatVersion(call);
  const { server } = call.app.config;
  const parsed = parseMessagesBody(messagesSchema, call.body, server.strict_params);
  const { fields, rest: body } = splitBlueprintFields(parsed.data);
  const messagesRequest = toMessagesRequest(body);
  const { resolved, candidates } = prepareInference(call, mapMessagesModel(body.model, call.app.config), ['chat']);
  call.log.model = body.model;
  const reasoning = resolved.model.reasoning_type !== 'non_reasoning' || resolved.model.capabilities.reasoning === true;
  const modelHints = { maxOutputTokens: resolved.model.max_output_tokens, reasoning };
  const translation = translationOf(messagesRequest, parsed.unknownFields, reasoning);
  const imageFields = new Map<string, string>();
  const hubRequest = messagesToChat(messagesRequest, resolved.id, imageFields);
  if (resolved.model.reasoning_type === 'non_reasoning') delete hubRequest.reasoning_effort;
  // Blueprints and skills shape the hub request (and may answer it); a shaped request always goes through the hub.
  const viaHub = usesBlueprints(fields);
  if (viaHub) translation.enter(call);
  const shaped = await applyBlueprintFields(blueprintAccess(call), fields, hubRequest);
  if (shaped.direct !== undefined) return sendDirectMessage(call, shaped.direct, { model: body.model, stream: body.stream === true, candidate: candidates[0]!, stopSequences: body.stop_sequences });
  let request = shaped.request;
  checkChatCapabilities(resolved.id, resolved.model, request);
  try {
    request = await inlineImageUrls(request, { allowPrivate: server.allow_private_urls, maxBytes: server.image_fetch_max_bytes, timeoutMs: server.image_fetch_timeout_ms, signal: call.signal });
  } catch (error) {
    throw renamedImageField(error, imageFields);
  }
  // Native pass-through forwards what the client sent (unknown fields too), not the parsed copy.
  const clientBody = clientMessagesBody(call.body);
  call.log.stream = body.stream === true;
  if (body.stream === true) return streamMessages(call, request, messagesRequest, clientBody, candidates, modelHints, translation, viaHub, shaped.outputGuard);

  const nativeBody = toNativeMessagesBody(clientBody, resolved.id, false);
  const { result, candidate } = await tryRoutes(candidates, call.signal, (route) =>
    timeUpstream(call, async (): Promise<NativeMessagesResult | { hub: ChatResponse }> => {
      const adapter = call.app.providers.get(route.providerId);
      const context = { signal: call.signal, upstreamModel: route.route.upstream_model, requestId: call.requestId, ...modelHints, passThroughHeaders: passThroughHeaders(call) };
      if (adapter.messages !== undefined && !viaHub) return adapter.messages(nativeBody, context);
      translation.check();
      return { hub: await adapter.chat({ ...request, stream: false }, context) };
    }),
    fallbackOptions(call),
  );
  if ('hub' in result) translation.enter(call);
  const usage = 'hub' in result ? result.hub.usage : result.usage;
  const metering = meterCall(call, candidate, consumptionOf(usage));
  if ('hub' in result && shaped.outputGuard !== undefined) guardCompletion(result.hub, shaped.outputGuard);
  const message =
    'hub' in result
      ? chatToMessages(result.hub, { model: body.model, ...(body.stop_sequences === undefined ? {} : { stopSequences: body.stop_sequences }) })
      : { ...result.body, model: body.model };
  sendJson(call.response, 200, { ...message, environment_impact: metering.environment_impact, billing_cost: metering.billing_cost }, responseHeaders(call));
}

/** What a translated call leaves out: refused (check) before the hub call, named (enter) once it answers. */
interface Translation {
  check(): void;
  enter(call: RequestCall): void;
}

function translationOf(request: MessagesRequest, unknownFields: readonly string[], reasoning: boolean): Translation {
  const plan = planMessagesTranslation(request, { reasoning });
  const ignored = new IgnoredParams().add(...unknownFields, ...plan.ignored);
  return {
    check() {
      if (plan.refusal !== undefined) throw plan.refusal;
    },
    enter(call) {
      this.check();
      ignored.report(call);
    },
  };
}

/** The client's own body minus nothing: validated already, so its known fields are sound. */
function clientMessagesBody(body: unknown): MessagesRequest {
  return body as MessagesRequest;
}

/** DESIGN §5: the client's `anthropic-beta` flags go with its body on native pass-through. */
function passThroughHeaders(call: RequestCall): Record<string, string> {
  const beta = call.request.headers['anthropic-beta'];
  const value = Array.isArray(beta) ? beta.join(',') : beta;
  return value === undefined || value === '' ? {} : { 'anthropic-beta': value };
}

/**
 * stream=true: hub chunks through the ChatToMessageEvents state machine, framed with event
 * names. Billed and logged like any call, but no billing fields on the wire (spec "Streaming").
 */
async function streamMessages(
  call: RequestCall,
  request: ChatRequest,
  messagesRequest: MessagesRequest,
  clientBody: MessagesRequest,
  candidates: CandidateRoute[],
  modelHints: Pick<CallContext, 'maxOutputTokens' | 'reasoning'>,
  translation: Translation,
  viaHub: boolean,
  outputGuard?: OutputGuard,
): Promise<void> {
  // message_start must carry real input usage, and the hub reports usage only at the end.
  const inputTokens = viaHub ? countChatPromptTokens(request.messages) : countMessagesInputTokens(messagesRequest);
  const nativeBody = toNativeMessagesBody(clientBody, request.model, true);
  const { result: opened, candidate } = await tryRoutes(candidates, call.signal, (route) =>
    timeUpstream(call, async (): Promise<OpenedStream> => {
      const adapter = call.app.providers.get(route.providerId);
      const context = { signal: call.signal, upstreamModel: route.route.upstream_model, requestId: call.requestId, ...modelHints, passThroughHeaders: passThroughHeaders(call) };
      if (adapter.messagesStream !== undefined && !viaHub) {
        const iterator = adapter.messagesStream(nativeBody, context)[Symbol.asyncIterator]();
        return { native: true, iterator, first: await iterator.next() };
      }
      translation.check();
      const iterator = adapter.chatStream({ ...request, stream: true, stream_options: { include_usage: true } }, context)[Symbol.asyncIterator]();
      return { native: false, iterator, first: await iterator.next() };
    }),
    fallbackOptions(call),
  );
  if (opened.native) return passThroughStream(call, opened, candidate, messagesRequest.model, inputTokens);
  translation.enter(call);

  const mapper = new ChatToMessageEvents({ model: messagesRequest.model, inputTokens, ...(messagesRequest.stop_sequences === undefined ? {} : { stopSequences: messagesRequest.stop_sequences }) });
  const writer = new SseWriter(call.response);
  writer.open(responseHeaders(call));
  let failure: unknown;
  // Output railguards: the same hold-back as on chat streams, before the events are made.
  const guard = outputGuard === undefined ? undefined : new ChunkGuard(outputGuard);
  try {
    let step = opened.first;
    let last: ChatChunk | undefined;
    while (!step.done) {
      last = step.value;
      if (guard === undefined || guard.apply(step.value)) {
        for (const event of mapper.push(step.value)) {
          const pushback = writer.send(event, event.type);
          if (pushback !== undefined) await pushback;
        }
      }
      if (call.signal.aborted) break;
      if (guard !== undefined && guard.blocked >= 1) {
        // Only the first choice is shown on this surface: once it is blocked, stop the upstream.
        await opened.iterator.return?.();
        break;
      }
      step = await opened.iterator.next();
    }
    if (guard !== undefined && last !== undefined && !call.signal.aborted) {
      for (const chunk of guard.flush({ id: last.id, created: last.created, model: last.model, system_fingerprint: null })) for (const event of mapper.push(chunk)) await writer.send(event, event.type);
    }
  } catch (error) {
    failure = error;
  }

  const usage = mapper.reportedUsage ?? makeUsage(inputTokens, countTokens(mapper.outputText));
  meterCall(call, candidate, consumptionOf(usage));

  if (call.signal.aborted) {
    writer.close();
    return;
  }
  let tail;
  if (failure !== undefined) {
    const error = isGatewayError(failure) ? failure : new GatewayError('INFERENCE_3105', 'The provider stream failed.', undefined, { cause: failure });
    call.log.error_code = error.code;
    if (!isGatewayError(failure)) call.app.logger.error('stream failed', { request_id: call.requestId, error: String(failure) });
    tail = mapper.fail((renderError(error, 'messages').body as { error: MessagesErrorBody }).error);
  } else {
    tail = mapper.end(usage);
    if (tail[0]?.type === 'error') call.log.error_code = 'INFERENCE_3105';
  }
  for (const event of tail) await writer.send(event, event.type);
  writer.close();
}

type OpenedStream =
  | { native: false; iterator: AsyncIterator<ChatChunk>; first: IteratorResult<ChatChunk> }
  | { native: true; iterator: AsyncIterator<NativeMessageEvent>; first: IteratorResult<NativeMessageEvent> };

/**
 * Native pass-through stream: the upstream's events go out unchanged except the echoed model in
 * message_start; usage is folded (message_delta counts are cumulative) for billing. A failure,
 * or an upstream that ends without message_stop, becomes one `error` event.
 */
async function passThroughStream(
  call: RequestCall,
  opened: Extract<OpenedStream, { native: true }>,
  candidate: CandidateRoute,
  clientModel: string,
  inputTokens: number,
): Promise<void> {
  const writer = new SseWriter(call.response);
  writer.open(responseHeaders(call));
  let usage: AnthropicUsage | undefined;
  let outputText = '';
  let stopped = false;
  let failure: unknown;
  try {
    let step = opened.first;
    while (!step.done) {
      const { type, payload } = step.value;
      if (type === 'message_start') {
        const message = payload['message'] as Record<string, unknown> | undefined;
        if (message !== undefined) {
          message['model'] = clientModel;
          usage = mergeUsage(usage, message['usage'] as AnthropicUsage | undefined);
        }
      } else if (type === 'message_delta') {
        usage = mergeUsage(usage, payload['usage'] as AnthropicUsage | undefined);
      } else if (type === 'content_block_delta') {
        const delta = payload['delta'] as { text?: unknown; partial_json?: unknown } | undefined;
        if (typeof delta?.text === 'string') outputText += delta.text;
        if (typeof delta?.partial_json === 'string') outputText += delta.partial_json;
      } else if (type === 'message_stop') {
        stopped = true;
      }
      const pushback = writer.send(payload, type);
      if (pushback !== undefined) await pushback;
      if (call.signal.aborted) break;
      step = await opened.iterator.next();
    }
  } catch (error) {
    failure = error;
  }
  const billed = usage === undefined ? makeUsage(inputTokens, countTokens(outputText)) : convertUsage(usage);
  meterCall(call, candidate, consumptionOf(billed));
  if (call.signal.aborted) {
    writer.close();
    return;
  }
  if (failure !== undefined || !stopped) {
    const error =
      failure === undefined
        ? new GatewayError('INFERENCE_3105', 'The upstream stream ended before the message was complete.')
        : isGatewayError(failure)
          ? failure
          : new GatewayError('INFERENCE_3105', 'The provider stream failed.', undefined, { cause: failure });
    call.log.error_code = error.code;
    if (failure !== undefined && !isGatewayError(failure)) call.app.logger.error('stream failed', { request_id: call.requestId, error: String(failure) });
    await writer.send(renderError(error, 'messages').body, 'error');
  }
  writer.close();
}
