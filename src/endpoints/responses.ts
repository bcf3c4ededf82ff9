import type { Consumption } from '../billing/price.js';
import { GatewayError, isGatewayError } from '../errors/gateway-error.js';
import { responseHeaders, timeUpstream, type RequestCall } from '../http/request-call.js';
import { sendJson } from '../http/respond.js';
import type { CallContext } from '../providers/types.js';
import { tryRoutes } from '../routing/fallback.js';
import type { CandidateRoute } from '../routing/select.js';
import type { DirectAnswer } from '../blueprints/apply.js';
import { makeUsage, type ChatMessage, type ChatRequest, type ChatResponse, type ChatUsage, type FinishReason, type ToolCall } from '../translate/chat/types.js';
import { finishResponse, responseSkeleton, turnOutput } from '../translate/responses/chat-to-responses.js';
import { fileSearchResultsText } from '../translate/responses/file-search-text.js';
import { fileSearchCallItem, fileSearchQuery, itemId } from '../translate/responses/output-items.js';
import { responsesToChat } from '../translate/responses/responses-to-chat.js';
import { hubToolChoice, planTools, type ToolPlan } from '../translate/responses/tools.js';
import type { ResponseObject, ResponsesError, ResponsesOutputItem, ResponsesRequest } from '../translate/responses/types.js';
import { checkChatCapabilities } from '../inference/preflight.js';
import { inlineImageUrls } from './shared/inline-images.js';
import { meterCall } from './shared/metering.js';
import { fallbackOptions, prepareInference } from './shared/resolve.js';
import { parseResponsesBody } from './validation/responses-schema.js';
import { createFileSearch, type FileSearch } from './responses-file-search.js';
import { handleNativeResponses, nativeWebSearchRoutes, webSearchForced, webSearchRefusal } from './responses-native.js';
import { refuseUnservableResponsesFields, unhonouredResponsesFields, withoutTools } from './responses-fields.js';
import { IgnoredParams } from './shared/ignored-params.js';
import { streamResponses } from './responses-stream.js';
import { applyBlueprintFields } from '../blueprints/chat.js';
import { blueprintAccess } from './shared/blueprint-access.js';
import { guardCompletion } from '../blueprints/guard-output.js';
import { splitBlueprintFields, usesBlueprints, type BlueprintFields } from '../blueprints/load.js';
import type { OutputGuard } from '../blueprints/output-guard.js';
import { sendDirectResponse } from '../blueprints/responses.js';

/** Most model turns one request may take while igw runs file_search for the model. */
export const MAX_MODEL_TURNS = 5;

/** Everything both the stream and the non-stream path need once the request is accepted. */
export interface PreparedResponses {
  request: ResponsesRequest;
  tools: ToolPlan;
  hub: ChatRequest;
  candidates: CandidateRoute[];
  skeleton: ResponseObject;
  modelHints: Pick<CallContext, 'maxOutputTokens' | 'reasoning'>;
  fileSearch: FileSearch | undefined;
  /** Most model turns (MAX_MODEL_TURNS, lowered by max_tool_calls). */
  maxTurns: number;
  /** Output railguards of the request's blueprint, checked on every model turn. */
  outputGuard?: OutputGuard | undefined;
}

/** POST /v1/responses (spec "POST /v1/responses"; stateless, translated through the chat hub). */
export async function handleResponses(call: RequestCall): Promise<void> {
  const parsed = parseResponsesBody(call.body, call.app.config.server.strict_params);
  const { fields, rest } = splitBlueprintFields(parsed.request as ResponsesRequest & BlueprintFields);
  // DESIGN §5: what the chat hub cannot carry is named, or refused when its loss changes the answer.
  const ignored = new IgnoredParams();
  // Tool search finds deferred tools; every tool is offered up front here, so it has nothing to do.
  const withoutSearch = withoutTools(rest as ResponsesRequest, ['tool_search']);
  let request = withoutSearch.request;
  let tools = planTools(request.tools);
  if (tools.webSearch) {
    // Hosted web search has no hub form: only a provider that speaks the Responses API runs it.
    const native = nativeWebSearchRoutes(call, request, tools);
    if (native !== undefined) {
      if (usesBlueprints(fields)) {
        throw new GatewayError('VALIDATION_4005', 'Blueprints and skills do not combine with hosted web_search tools (those run natively at the provider, outside the chat hub).', { field: 'tools' });
      }
      // The provider gets the client's body, unknown fields included; it judges them.
      return handleNativeResponses(call, request, native, call.body as Record<string, unknown>);
    }
    if (webSearchForced(request)) throw webSearchRefusal(call, request);
    // Offered, not required: the model answers without it, and the client is told.
    const stripped = withoutTools(request, ['web_search', 'web_search_preview']);
    request = stripped.request;
    tools = planTools(request.tools);
    ignored.add(...stripped.dropped);
  }
  ignored.add(...withoutSearch.dropped);
  refuseUnservableResponsesFields(parsed.body);
  ignored.add(...parsed.unknownFields, ...unhonouredResponsesFields(parsed.body));
  const prepared = await prepareResponses(call, request, tools, fields, ignored);
  ignored.report(call);
  call.log.stream = request.stream === true;
  if ('direct' in prepared) return sendDirectResponse(call, prepared.direct, prepared, request.stream === true);
  if (request.stream === true) return streamResponses(call, prepared);

  const turns = await runTurns(call, prepared);
  const metering = meterCall(call, turns.candidate, consumptionOf(turns.usage));
  const response = finishResponse(prepared.skeleton, turns.output, turns.finishReason, turns.usage, turns.error);
  if (turns.error !== undefined) call.log.error_code = turns.error.code;
  sendJson(call.response, 200, { ...response, environment_impact: metering.environment_impact, billing_cost: metering.billing_cost }, responseHeaders(call));
}

/** GET and DELETE /v1/responses/{id}: responses are never retained (spec "Responses-style status"). */
export async function handleRetrieveResponse(call: RequestCall): Promise<void> {
  const id = call.params['id'] ?? '';
  throw new GatewayError('RESOURCE_5404', `No response "${id}": igw keeps no responses (they are stateless); keep the answer you received.`, { id });
}

export async function prepareResponses(call: RequestCall, request: ResponsesRequest, tools: ToolPlan, fields: BlueprintFields = {}, ignored = new IgnoredParams()): Promise<PreparedResponses | (PreparedResponses & { direct: DirectAnswer })> {
  const fileSearchIndex = (request.tools ?? []).findIndex((tool) => tool.type === 'file_search');
  const fileSearch = tools.fileSearch === undefined ? undefined : await createFileSearch(call, tools.fileSearch, fileSearchIndex, request.include ?? []);
  const { resolved, candidates } = prepareInference(call, request.model, ['chat']);
  const imageFields = new Map<string, string>();
  // Blueprints and skills shape the hub request (and may answer it without a model call).
  const translated = responsesToChat(request, resolved.id, tools, imageFields);
  // tool_choice is translated only beside request tools; with skills it may name a skill's tool.
  if (translated.tool_choice === undefined && request.tool_choice != null && usesBlueprints(fields)) translated.tool_choice = hubToolChoice(request.tool_choice);
  const shaped = await applyBlueprintFields(blueprintAccess(call), fields, translated);
  let hub = shaped.request;
  // Spec (chat): reasoning effort is ignored by non-reasoning models; strict upstreams would refuse it.
  if (resolved.model.reasoning_type === 'non_reasoning' && hub.reasoning_effort !== undefined) {
    delete hub.reasoning_effort;
    ignored.add('reasoning.effort');
  }
  const modelHints = { maxOutputTokens: resolved.model.max_output_tokens, reasoning: resolved.model.reasoning_type !== 'non_reasoning' || resolved.model.capabilities.reasoning === true };
  checkChatCapabilities(resolved.id, resolved.model, hub);
  const { server } = call.app.config;
  try {
    hub = await inlineImageUrls(hub, { allowPrivate: server.allow_private_urls, maxBytes: server.image_fetch_max_bytes, timeoutMs: server.image_fetch_timeout_ms, signal: call.signal });
  } catch (error) {
    throw renamedImageField(error, imageFields);
  }
  const skeleton = responseSkeleton(request, { id: call.app.ids.next('resp_'), createdAt: Math.floor(call.app.clock.now() / 1000), model: request.model });
  const maxTurns = request.max_tool_calls == null ? MAX_MODEL_TURNS : Math.min(MAX_MODEL_TURNS, request.max_tool_calls + 1);
  const prepared = { request, tools, hub, candidates, skeleton, modelHints, fileSearch, maxTurns, outputGuard: shaped.outputGuard };
  return shaped.direct === undefined ? prepared : { ...prepared, direct: shaped.direct };
}

interface TurnsResult {
  output: ResponsesOutputItem[];
  usage: ChatUsage;
  candidate: CandidateRoute;
  finishReason: FinishReason | null;
  error: ResponsesError | undefined;
}

/**
 * The model turns of one non-stream answer. Usually one; when the model calls file_search, igw
 * runs the search, hands the results back and lets the model continue (up to maxTurns). A
 * provider failure on the first turn is the normal error envelope; on a later turn the answer
 * is `failed` with what was produced so far (spec "Responses-style status").
 */
async function runTurns(call: RequestCall, prepared: PreparedResponses): Promise<TurnsResult> {
  const output: ResponsesOutputItem[] = [];
  let usage = makeUsage(0, 0);
  let candidates = prepared.candidates;
  let candidate: CandidateRoute | undefined;
  let finishReason: FinishReason | null = null;
  let hub = prepared.hub;
  for (let turn = 0; ; turn++) {
    let answer: ChatResponse;
    try {
      const attempt = await tryRoutes(candidates, call.signal, (route) =>
        timeUpstream(call, () =>
          call.app.providers.get(route.providerId).chat({ ...hub, stream: false }, { signal: call.signal, upstreamModel: route.route.upstream_model, requestId: call.requestId, ...prepared.modelHints }),
        ),
        fallbackOptions(call),
      );
      answer = attempt.result;
      candidate = attempt.candidate;
      if (prepared.outputGuard !== undefined) guardCompletion(answer, prepared.outputGuard);
    } catch (error) {
      if (candidate === undefined) throw error;
      return { output, usage, candidate, finishReason, error: responsesErrorOf(call, error) };
    }
    // Later turns go to the route that answered first, so one answer is one route's work.
    candidates = [candidate, ...prepared.candidates.filter((other) => other !== candidate)];
    usage = addUsage(usage, answer.usage);
    const produced = turnOutput(answer, prepared.tools, prepared.skeleton.id, output.length);
    output.push(...produced.items);
    finishReason = produced.finishReason;
    if (produced.internalCalls.length === 0 || prepared.fileSearch === undefined) break;

    const results: ChatMessage[] = [];
    for (const internal of produced.internalCalls) {
      const query = fileSearchQuery(internal);
      const id = itemId('file_search_call', prepared.skeleton.id, output.length);
      let found;
      try {
        found = await prepared.fileSearch.run(query);
      } catch (error) {
        // The model already ran (and is billed): the answer fails with what it has.
        output.push(fileSearchCallItem(id, query, 'failed', null));
        return { output, usage, candidate, finishReason, error: responsesErrorOf(call, error) };
      }
      output.push(fileSearchCallItem(id, query, 'completed', prepared.fileSearch.includeResults ? found : null));
      results.push({ role: 'tool', tool_call_id: internal.id, content: fileSearchResultsText(query, found) });
    }
    // Client tool calls in the same turn end the answer: the client runs them and comes back
    // (with the file_search_call items, which carry the search for the next request).
    const clientCalls = produced.items.some((item) => item.type !== 'message');
    if (clientCalls || turn + 1 >= prepared.maxTurns) break;
    hub = continuedRequest(hub, answer, produced.internalCalls, results);
  }
  return { output, usage, candidate, finishReason, error: undefined };
}

/**
 * The request for the next model turn: the model's own turn (text and its file_search calls)
 * and the search results appended. A forced tool choice has been honoured by now, so the next
 * turn may answer freely (otherwise a forced file_search would loop).
 */
export function continuedRequest(hub: ChatRequest, answer: Pick<ChatResponse, 'choices'>, internalCalls: ToolCall[], results: ChatMessage[]): ChatRequest {
  const text = answer.choices[0]?.message.content ?? '';
  const assistant: ChatMessage = { role: 'assistant', content: text === '' ? null : text, tool_calls: internalCalls };
  const next: ChatRequest = { ...hub, messages: [...hub.messages, assistant, ...results] };
  if (next.tool_choice !== undefined && next.tool_choice !== 'none') next.tool_choice = 'auto';
  return next;
}

export function responsesErrorOf(call: RequestCall, error: unknown): ResponsesError {
  const gatewayError = isGatewayError(error) ? error : new GatewayError('INFERENCE_3105', 'The provider failed.', undefined, { cause: error });
  if (!isGatewayError(error)) call.app.logger.error('responses call failed', { request_id: call.requestId, error: String(error) });
  return { code: gatewayError.code, message: gatewayError.message };
}

export function addUsage(total: ChatUsage, more: ChatUsage): ChatUsage {
  return makeUsage(total.prompt_tokens + more.prompt_tokens, total.completion_tokens + more.completion_tokens, total.cached_tokens + (more.cached_tokens ?? 0), total.reasoning_tokens + (more.reasoning_tokens ?? 0));
}

export function consumptionOf(usage: ChatUsage): Consumption {
  return { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens, cachedTokens: usage.cached_tokens, images: 0, audioMinutes: 0 };
}

/** An image problem found on the hub request, re-worded to name the client's part (input[i].content[j]). */
function renamedImageField(error: unknown, imageFields: ReadonlyMap<string, string>): unknown {
  if (!isGatewayError(error) || typeof error.details?.['field'] !== 'string') return error;
  const hubField = error.details['field'];
  const field = imageFields.get(hubField);
  if (field === undefined) return error;
  return new GatewayError(error.code, error.message.split(`"${hubField}"`).join(`"${field}"`), { ...error.details, field }, { cause: error.cause });
}

