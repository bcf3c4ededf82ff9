import { GatewayError, isGatewayError } from '../errors/gateway-error.js';
import { inferenceScope, responseHeaders, type RequestCall } from '../http/request-call.js';
import { sendJson } from '../http/respond.js';
import { billingFields, checkChatCapabilities, completeChat, meterServed, resolveTarget, type InferenceScope, type Served } from '../inference/index.js';
import { makeUsage, type ChatMessage, type ChatResponse, type ChatUsage, type FinishReason } from '../translate/chat/types.js';
import { finishResponse, responseSkeleton, turnOutput } from '../translate/responses/chat-to-responses.js';
import { fileSearchCallItem, itemId } from '../translate/responses/output-items.js';
import { responsesToChat } from '../translate/responses/responses-to-chat.js';
import { hubToolChoice, planTools, type ToolPlan } from '../translate/responses/tools.js';
import type { ResponsesError, ResponsesOutputItem, ResponsesRequest } from '../translate/responses/types.js';
import { inlineImageUrls } from './shared/inline-images.js';
import { parseResponsesBody } from './validation/responses-schema.js';
import { createFileSearch } from './responses-file-search.js';
import { hasServerTools, runServerTools } from './responses-server-tools.js';
import { prepareMcp } from './responses-mcp.js';
import { handleNativeResponses, nativeWebSearchRoutes, webSearchForced, webSearchRefusal } from './responses-native.js';
import { refuseUnservableResponsesFields, unhonouredResponsesFields, withoutTools } from './responses-fields.js';
import { IgnoredParams } from './shared/ignored-params.js';
import { streamResponses } from './responses-stream.js';
import { addUsage, continuedRequest, MAX_MODEL_TURNS, nextTurnPlan, responsesErrorOf, type PreparedResponses } from './responses-turns.js';
import { applyBlueprintFields } from '../blueprints/chat.js';
import { blueprintAccess } from './shared/blueprint-access.js';
import { splitBlueprintFields, usesBlueprints, type BlueprintFields } from '../blueprints/load.js';

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
    const native = nativeWebSearchRoutes(call, inferenceScope(call), request, tools);
    if (native !== undefined) {
      if (usesBlueprints(fields)) {
        throw new GatewayError('VALIDATION_4005', 'Blueprints and skills do not combine with hosted web_search tools (those run natively at the provider, outside the chat hub).', { field: 'tools' });
      }
      // The provider gets the client's body, unknown fields included; it judges them.
      return handleNativeResponses(call, inferenceScope(call), request, native, call.body as Record<string, unknown>);
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
  const scope = inferenceScope(call);
  const prepared = await prepareResponses(call, scope, request, tools, fields, ignored);
  ignored.report(call);
  scope.log.stream = request.stream === true;
  if (request.stream === true) return streamResponses(call, scope, prepared);

  const turns = await runTurns(scope, prepared);
  const metering = meterServed(scope, turns.served, turns.usage);
  const response = finishResponse(prepared.skeleton, turns.output, turns.finishReason, turns.usage, turns.error);
  if (turns.error !== undefined) scope.log.error_code = turns.error.code;
  sendJson(call.response, 200, { ...response, ...billingFields(metering) }, responseHeaders(call));
}

/** GET and DELETE /v1/responses/{id}: responses are never retained (spec "Responses-style status"). */
export async function handleRetrieveResponse(call: RequestCall): Promise<void> {
  const id = call.params['id'] ?? '';
  throw new GatewayError('RESOURCE_5404', `No response "${id}": igw keeps no responses (they are stateless); keep the answer you received.`, { id });
}

export async function prepareResponses(call: RequestCall, scope: InferenceScope, request: ResponsesRequest, tools: ToolPlan, fields: BlueprintFields = {}, ignored = new IgnoredParams()): Promise<PreparedResponses> {
  const responseId = call.app.ids.next('resp_');
  // MCP servers are listed (and approved calls run) first: their tools are offered to the model.
  const mcp = await prepareMcp(call, request, tools, responseId);
  if (mcp !== undefined) ({ request, tools } = mcp);
  const fileSearchIndex = (request.tools ?? []).findIndex((tool) => tool.type === 'file_search');
  const fileSearch = tools.fileSearch === undefined ? undefined : await createFileSearch(call, tools.fileSearch, fileSearchIndex, request.include ?? []);
  const target = resolveTarget(scope, request.model, ['chat']);
  const imageFields = new Map<string, string>();
  // Blueprints and skills shape the hub request (and may answer it without a model call).
  const translated = responsesToChat(request, target.resolved.id, tools, imageFields);
  // tool_choice is translated only beside request tools; with skills it may name a skill's tool.
  if (translated.tool_choice === undefined && request.tool_choice != null && usesBlueprints(fields)) translated.tool_choice = hubToolChoice(request.tool_choice);
  const shaped = await applyBlueprintFields(blueprintAccess(call), fields, translated);
  let hub = shaped.request;
  // Spec (chat): reasoning effort is ignored by non-reasoning models; strict upstreams would refuse it.
  if (target.resolved.model.reasoning_type === 'non_reasoning' && hub.reasoning_effort !== undefined) {
    delete hub.reasoning_effort;
    ignored.add('reasoning.effort');
  }
  checkChatCapabilities(target.resolved.id, target.resolved.model, hub);
  const { server } = call.app.config;
  try {
    hub = await inlineImageUrls(hub, { allowPrivate: server.allow_private_urls, maxBytes: server.image_fetch_max_bytes, timeoutMs: server.image_fetch_timeout_ms, signal: scope.signal });
  } catch (error) {
    throw renamedImageField(error, imageFields);
  }
  const skeleton = responseSkeleton(request, { id: responseId, createdAt: Math.floor(call.app.clock.now() / 1000), model: request.model });
  const maxTurns = request.max_tool_calls == null ? MAX_MODEL_TURNS : Math.min(MAX_MODEL_TURNS, request.max_tool_calls + 1);
  const prepared = { request, tools, skeleton, serverTools: { fileSearch, mcp: mcp?.session }, leading: mcp?.leading ?? [], maxTurns };
  if (shaped.direct !== undefined) {
    const directMeta = { id: `chatcmpl-${call.requestId}`, created: skeleton.created_at, model: skeleton.model, n: 1 };
    return { ...prepared, plan: { target, request: hub, direct: shaped.direct, directMeta } };
  }
  return { ...prepared, plan: { target, request: hub, outputGuard: shaped.outputGuard } };
}

interface TurnsResult {
  output: ResponsesOutputItem[];
  usage: ChatUsage;
  served: Served;
  finishReason: FinishReason | null;
  error: ResponsesError | undefined;
}

/**
 * The model turns of one non-stream answer. Usually one; when the model calls a server-side tool
 * (file_search), igw runs it, hands the results back and lets the model continue (up to
 * maxTurns). A provider failure on the first turn is the normal error envelope; on a later turn
 * the answer is `failed` with what was produced so far (spec "Responses-style status").
 */
async function runTurns(scope: InferenceScope, prepared: PreparedResponses): Promise<TurnsResult> {
  const output: ResponsesOutputItem[] = [...prepared.leading];
  let usage = makeUsage(0, 0);
  let served: Served | undefined;
  let finishReason: FinishReason | null = null;
  let plan = prepared.plan;
  for (let turn = 0; ; turn++) {
    let answer: ChatResponse;
    try {
      const completed = await completeChat(scope, plan);
      answer = completed.response;
      served = completed;
    } catch (error) {
      if (served === undefined) throw error;
      return { output, usage, served, finishReason, error: responsesErrorOf(scope, error) };
    }
    usage = addUsage(usage, answer.usage);
    const produced = turnOutput(answer, prepared.tools, prepared.skeleton.id, output.length);
    output.push(...produced.items);
    finishReason = produced.finishReason;
    if (produced.internalCalls.length === 0 || !hasServerTools(prepared.serverTools)) break;

    let results: ChatMessage[];
    const started = new Map<number, { id: string; query: string }>();
    let approvals = 0;
    try {
      results = await runServerTools(produced.internalCalls, prepared.serverTools, {
        fileSearchStarted: (query) => {
          const handle = started.size;
          started.set(handle, { id: itemId('file_search_call', prepared.skeleton.id, output.length), query });
          return handle;
        },
        fileSearchEnded: (handle, status, results) => {
          const { id, query } = started.get(handle)!;
          output.push(fileSearchCallItem(id, query, status, results));
        },
        // The item is added when the call is done: nothing else is added to the output meanwhile.
        mcpCallStarted: () => output.length,
        mcpCallEnded: (_handle, item) => {
          output.push(item);
        },
        mcpApprovalRequested: (request) => {
          output.push(request(output.length));
          approvals += 1;
        },
      });
    } catch (error) {
      // The model already ran (and is billed): the answer fails with what it has.
      return { output, usage, served, finishReason, error: responsesErrorOf(scope, error) };
    }
    // Client tool calls in the same turn end the answer: the client runs them and comes back
    // (with the file_search_call items, which carry the search for the next request).
    // A call waiting for approval ends it too: the client answers the request and comes back.
    const clientCalls = produced.items.some((item) => item.type !== 'message');
    if (clientCalls || approvals > 0 || turn + 1 >= prepared.maxTurns) break;
    plan = nextTurnPlan(plan, served, continuedRequest(plan.request, answer, produced.internalCalls, results));
  }
  return { output, usage, served, finishReason, error: undefined };
}

/** An image problem found on the hub request, re-worded to name the client's part (input[i].content[j]). */
function renamedImageField(error: unknown, imageFields: ReadonlyMap<string, string>): unknown {
  if (!isGatewayError(error) || typeof error.details?.['field'] !== 'string') return error;
  const hubField = error.details['field'];
  const field = imageFields.get(hubField);
  if (field === undefined) return error;
  return new GatewayError(error.code, error.message.split(`"${hubField}"`).join(`"${field}"`), { ...error.details, field }, { cause: error.cause });
}

