import type { Consumption } from '../billing/price.js';
import { GatewayError, isGatewayError } from '../errors/gateway-error.js';
import { renderError } from '../errors/render.js';
import { echoableHeaderValue } from '../http/header-value.js';
import { responseHeaders, timeUpstream, type RequestCall } from '../http/request-call.js';
import { sendJson } from '../http/respond.js';
import { SseWriter } from '../http/sse.js';
import { tryRoutes } from '../routing/fallback.js';
import { countChatPromptTokens, countTokens } from '../tokens/tokenizer.js';
import type { ChatChunk, ChatRequest, ChatUsage } from '../translate/chat/types.js';
import type { CallContext } from '../providers/types.js';
import { checkChatCapabilities } from './shared/capabilities.js';
import { meterCall } from './shared/metering.js';
import { fallbackOptions, prepareInference } from './shared/resolve.js';
import { inlineImageUrls } from './shared/inline-images.js';
import { parseOpenRequest } from './validation/parse.js';
import { IgnoredParams } from './shared/ignored-params.js';
import type { CandidateRoute } from '../routing/select.js';
import { applyBlueprintFields, sendDirectChat } from '../blueprints/chat.js';
import { guardCompletion, ChunkGuard } from '../blueprints/guard-output.js';
import type { OutputGuard } from '../blueprints/output-guard.js';
import { chatCompletionSchema, type ChatCompletionBody } from './validation/chat-schema.js';
import { NOT_FOR_THE_HUB, refuseUnservableChatFields, unhonouredChatFields } from './chat-completions-fields.js';
import { hubReasoningEffort } from '../translate/chat/reasoning-effort.js';

/**
 * The validated body as a hub request: fields the hub does not carry (chat-completions-fields.ts)
 * and nulls dropped, the reasoning effort at its nearest hub level, an allowed_tools choice as
 * just those tools and its mode.
 */
export function toHubRequest(body: ChatCompletionBody): ChatRequest {
  const hub: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (value === null || value === undefined) continue;
    if (NOT_FOR_THE_HUB.has(key)) continue;
    hub[key] = value;
  }
  if (body.reasoning_effort != null) {
    const effort = hubReasoningEffort(body.reasoning_effort);
    if (effort === undefined) delete hub['reasoning_effort'];
    else hub['reasoning_effort'] = effort;
  }
  const choice = body.tool_choice;
  if (typeof choice === 'object' && choice.type === 'allowed_tools') {
    const allowed = new Set(choice.allowed_tools.tools.map((entry) => entry.function.name));
    hub['tools'] = (body.tools ?? []).filter((tool) => allowed.has(tool.function.name));
    hub['tool_choice'] = choice.allowed_tools.mode;
  }
  if (body.stream_options?.include_obfuscation !== undefined) {
    const { include_obfuscation: _obfuscation, ...rest } = body.stream_options;
    hub['stream_options'] = rest;
  }
  return hub as unknown as ChatRequest;
}

/** What a call drops, named once the answering route is known. */
interface IgnoredNaming {
  ignored: IgnoredParams;
  /** Unknown top-level fields sent along in the hub request (`unknown_fields`). */
  unknown: readonly string[];
}

/**
 * The unknown top-level fields reach a provider of kind `openai` as sent (the chat wire is its
 * own); any other provider translates and never sees them, so they are named with the rest.
 */
function reportIgnored(call: RequestCall, naming: IgnoredNaming, candidate: CandidateRoute): void {
  if (candidate.provider.kind !== 'openai') naming.ignored.add(...naming.unknown);
  naming.ignored.report(call);
}

/**
 * Unknown fields at the top of the body travel in the hub request for a provider that speaks
 * the chat wire; unknown fields inside messages or tools cannot (the hub rebuilds those), so
 * they are dropped and named on every route.
 */
function forwardableUnknownFields(raw: unknown, unknownFields: readonly string[]): { fields: Record<string, unknown> | undefined; forwarded: string[]; dropped: string[] } {
  const source = raw as Record<string, unknown>;
  const forwarded = unknownFields.filter((field) => /^[A-Za-z0-9_$-]+$/.test(field));
  const dropped = unknownFields.filter((field) => !forwarded.includes(field));
  const fields = forwarded.length === 0 ? undefined : Object.fromEntries(forwarded.map((field) => [field, source[field]]));
  return { fields, forwarded, dropped };
}

function consumptionOf(usage: ChatUsage): Consumption {
  return { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens, cachedTokens: usage.cached_tokens, images: 0, audioMinutes: 0 };
}

/** POST /v1/chat/completions (spec "Chat completion object"; DESIGN §5 stream shape). */
export async function handleChatCompletions(call: RequestCall): Promise<void> {
  const { server } = call.app.config;
  // DESIGN §5: unknown names pass (refused with server.strict_params); declared fields igw cannot
  // honour are refused by name when their loss would change the answer, else dropped and named.
  const { data: body, unknownFields } = parseOpenRequest(chatCompletionSchema, call.body, server.strict_params);
  refuseUnservableChatFields(body);
  const ignored = new IgnoredParams().add(...unhonouredChatFields(body));
  const forwardable = forwardableUnknownFields(call.body, unknownFields);
  // Blueprints and skills shape the request (and may answer it) before anything goes upstream.
  const shaped = await applyBlueprintFields(call, body, { ...toHubRequest(body), ...(forwardable.fields === undefined ? {} : { unknown_fields: forwardable.fields }) });
  const { resolved, candidates } = prepareInference(call, shaped.request.model, ['chat'], { preset: body.preset });
  ignored.add(...forwardable.dropped);
  if (shaped.direct !== undefined) {
    ignored.add(...unknownFields).report(call);
    return sendDirectChat(call, shaped.direct, { model: resolved.requested, n: body.n ?? 1, stream: body.stream === true, includeUsage: body.stream_options?.include_usage === true, candidate: candidates[0]! });
  }
  let request = shaped.request;
  // Spec: reasoning_effort is "ignored by non-reasoning models"; forwarding it would make
  // strict upstreams refuse the whole request.
  if (resolved.model.reasoning_type === 'non_reasoning' && request.reasoning_effort !== undefined) {
    delete request.reasoning_effort;
    ignored.add('reasoning_effort');
  }
  const modelHints = { maxOutputTokens: resolved.model.max_output_tokens, reasoning: resolved.model.reasoning_type !== 'non_reasoning' || resolved.model.capabilities.reasoning === true };
  checkChatCapabilities(resolved.id, resolved.model, request);
  // Spec: image URLs are fetched and re-encoded server side (SSRF rules in net/safe-fetch), after
  // the vision check so a model without vision is refused before anything is fetched.
  request = await inlineImageUrls(request, { allowPrivate: server.allow_private_urls, maxBytes: server.image_fetch_max_bytes, timeoutMs: server.image_fetch_timeout_ms, signal: call.signal });
  // Echoed only when it is a sane header value (issue 14): anything else is dropped, never written.
  const clientRequestId = echoableHeaderValue(body.request_id);
  if (clientRequestId !== undefined) call.headers['x-client-request-id'] = clientRequestId;
  call.log.stream = body.stream === true;
  const naming = { ignored, unknown: forwardable.forwarded };
  if (body.stream === true) return streamChat(call, request, resolved.requested, candidates, body.stream_options?.include_usage === true, modelHints, naming, shaped.outputGuard);

  const { result, candidate } = await tryRoutes(candidates, call.signal, (route) =>
    timeUpstream(call, () =>
      call.app.providers.get(route.providerId).chat({ ...request, stream: false }, { signal: call.signal, upstreamModel: route.route.upstream_model, requestId: call.requestId, ...modelHints }),
    ),
    fallbackOptions(call),
  );
  reportIgnored(call, naming, candidate);
  const metering = meterCall(call, candidate, consumptionOf(result.usage));
  if (shaped.outputGuard !== undefined) guardCompletion(result, shaped.outputGuard);
  sendJson(call.response, 200, { ...result, model: resolved.requested, environment_impact: metering.environment_impact, billing_cost: metering.billing_cost }, responseHeaders(call));
}

async function streamChat(
  call: RequestCall,
  request: ChatRequest,
  requestedModel: string,
  candidates: Parameters<typeof tryRoutes>[0],
  includeUsage: boolean,
  modelHints: Pick<CallContext, 'maxOutputTokens' | 'reasoning'>,
  naming: IgnoredNaming,
  outputGuard?: OutputGuard,
): Promise<void> {
  // The first chunk is awaited inside the route loop, so a provider that fails before sending
  // anything still falls through to the next route; after that the stream is committed.
  const { result: opened, candidate } = await tryRoutes(candidates, call.signal, (route) =>
    timeUpstream(call, async () => {
      const iterator = call.app.providers
        .get(route.providerId)
        .chatStream({ ...request, stream: true }, { signal: call.signal, upstreamModel: route.route.upstream_model, requestId: call.requestId, ...modelHints })
        [Symbol.asyncIterator]();
      const first = await iterator.next();
      return { iterator, first };
    }),
    fallbackOptions(call),
  );

  reportIgnored(call, naming, candidate);
  const writer = new SseWriter(call.response);
  writer.open(responseHeaders(call));
  let usage: ChatUsage | undefined;
  let last: ChatChunk | undefined;
  let streamedText = '';
  let failure: unknown;
  const guard = outputGuard === undefined ? undefined : new ChunkGuard(outputGuard);
  try {
    let step = opened.first;
    while (!step.done) {
      const chunk = step.value;
      last = chunk;
      if (chunk.usage != null) usage = chunk.usage;
      for (const choice of chunk.choices) {
        streamedText += choice.delta.content ?? '';
        for (const toolCall of choice.delta.tool_calls ?? []) streamedText += toolCall.function?.arguments ?? '';
      }
      // Usage goes out once, on the final chunk the client asked for; usage-only chunks are held back.
      // Output railguards hold back text a match could still cover, and end a matching choice as `blocked`.
      if (chunk.choices.length > 0 && (guard === undefined || guard.apply(chunk))) {
        // Adapters hand over fresh chunk objects: rewrite in place rather than copy per event.
        chunk.model = requestedModel;
        if (chunk.usage !== undefined) delete chunk.usage;
        const pushback = writer.send(chunk);
        if (pushback !== undefined) await pushback;
      }
      if (call.signal.aborted) break;
      if (guard !== undefined && guard.blocked >= (request.n ?? 1)) {
        // Every choice is blocked: nothing more will be sent, so stop the upstream now.
        await opened.iterator.return?.();
        break;
      }
      step = await opened.iterator.next();
    }
    if (guard !== undefined && !call.signal.aborted && last !== undefined) {
      for (const chunk of guard.flush({ id: last.id, created: last.created, model: requestedModel, system_fingerprint: last.system_fingerprint ?? null })) await writer.send(chunk);
    }
  } catch (error) {
    failure = error;
  }

  if (usage === undefined) {
    // The upstream did not report usage (some servers ignore include_usage): count it ourselves.
    usage = {
      prompt_tokens: countChatPromptTokens(request.messages),
      completion_tokens: countTokens(streamedText),
      total_tokens: 0,
      cached_tokens: 0,
      reasoning_tokens: 0,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    };
    usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
  }
  const metering = meterCall(call, candidate, consumptionOf(usage));

  if (failure !== undefined || call.signal.aborted) {
    if (failure !== undefined && !call.signal.aborted) {
      const error = isGatewayError(failure) ? failure : new GatewayError('INFERENCE_3105', 'The provider stream failed.', undefined, { cause: failure });
      call.log.error_code = error.code;
      if (!isGatewayError(failure)) call.app.logger.error('stream failed', { request_id: call.requestId, error: String(failure) });
      await writer.send(renderError(error).body);
    }
    writer.close();
    return;
  }
  if (includeUsage) {
    await writer.send({
      id: last?.id ?? `chatcmpl-${call.requestId}`,
      object: 'chat.completion.chunk',
      created: last?.created ?? Math.floor(call.app.clock.now() / 1000),
      model: requestedModel,
      system_fingerprint: last?.system_fingerprint ?? null,
      choices: [],
      usage,
      environment_impact: metering.environment_impact,
      billing_cost: metering.billing_cost,
    });
  }
  await writer.send('[DONE]');
  writer.close();
}
