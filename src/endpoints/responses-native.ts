import { GatewayError, isGatewayError } from '../errors/gateway-error.js';
import { responseHeaders, timeUpstream, type RequestCall } from '../http/request-call.js';
import { sendJson } from '../http/respond.js';
import { SseWriter } from '../http/sse.js';
import type { NativeResponseEvent, ProviderAdapter } from '../providers/types.js';
import { tryRoutes } from '../routing/fallback.js';
import type { CandidateRoute } from '../routing/select.js';
import { makeUsage } from '../translate/chat/types.js';
import type { ToolPlan } from '../translate/responses/tools.js';
import type { ResponsesRequest } from '../translate/responses/types.js';
import { nativeResponsesUsage } from '../translate/responses/usage.js';
import { consumptionOf, responsesErrorOf } from './responses.js';
import { meterCall } from './shared/metering.js';
import { fallbackOptions, prepareInference } from './shared/resolve.js';

/** The routes of the model whose provider speaks the Responses API (config `responses_api: true`). */
export interface NativeRoutes {
  candidates: CandidateRoute[];
}

/**
 * web_search / web_search_preview run on the provider's side, so they have no hub form: a
 * request with them goes natively to a provider of kind `openai` configured with
 * `responses_api: true` (spec: "pass through natively to an OpenAI provider that speaks the
 * Responses API"). These are the model's routes to such providers (none: the caller drops the
 * tool, or refuses with webSearchRefusal when the request forces it).
 * file_search cannot join them: igw runs it itself, between model turns a native call does not have.
 */
export function nativeWebSearchRoutes(call: RequestCall, request: ResponsesRequest, tools: ToolPlan): NativeRoutes | undefined {
  const { candidates } = prepareInference(call, request.model, ['chat']);
  const native = candidates.filter((candidate) => candidate.provider.kind === 'openai' && candidate.provider.responses_api === true && nativeAdapter(call, candidate) !== undefined);
  if (native.length === 0) return undefined;
  if (tools.fileSearch !== undefined) {
    const { index, type } = firstWebSearch(request);
    throw new GatewayError('VALIDATION_4005', `file_search cannot be combined with ${type}: igw runs file_search itself, while ${type} runs inside the provider; send them in separate requests.`, {
      field: `tools[${index}].type`,
    });
  }
  return { candidates: native };
}

/**
 * Whether the answer depends on web search running: tool_choice names it, or requires a tool
 * when web search is the only one. Otherwise the model may answer without it, so a request whose
 * model cannot search has it dropped (DESIGN §5) instead of refused.
 */
export function webSearchForced(request: ResponsesRequest): boolean {
  const choice = request.tool_choice;
  if (typeof choice === 'object') return choice.type === 'web_search' || choice.type === 'web_search_preview';
  return choice === 'required' && (request.tools ?? []).every((tool) => tool.type === 'web_search' || tool.type === 'web_search_preview');
}

/** The 400 for a web search the model cannot run: it names the providers that can. */
export function webSearchRefusal(call: RequestCall, request: ResponsesRequest): GatewayError {
  const { index, type } = firstWebSearch(request);
  const able = Object.entries(call.app.config.providers)
    .filter(([, provider]) => provider.enabled && provider.kind === 'openai' && provider.responses_api === true)
    .map(([id]) => id);
  const next =
    able.length > 0
      ? `Providers that can: ${able.join(', ')}; use a model routed to one of them.`
      : 'No configured provider can: set "responses_api": true on a provider of kind "openai" whose server offers /v1/responses (e.g. api.openai.com).';
  return new GatewayError('VALIDATION_4005', `Tool type "${type}" runs only on a provider that speaks the OpenAI Responses API, and model "${request.model}" has no route to one. ${next}`, {
    field: `tools[${index}].type`,
    tool_type: type,
    providers: able,
  });
}

function firstWebSearch(request: ResponsesRequest): { index: number; type: string } {
  const toolsList = request.tools ?? [];
  const index = toolsList.findIndex((tool) => tool.type === 'web_search' || tool.type === 'web_search_preview');
  return { index, type: toolsList[index]?.type ?? 'web_search' };
}

function nativeAdapter(call: RequestCall, candidate: CandidateRoute): Required<Pick<ProviderAdapter, 'responses' | 'responsesStream'>> | undefined {
  try {
    const adapter = call.app.providers.get(candidate.providerId);
    return adapter.responses !== undefined && adapter.responsesStream !== undefined ? (adapter as Required<Pick<ProviderAdapter, 'responses' | 'responsesStream'>>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The client's body as the provider's (DESIGN §5: fields igw does not know go untouched):
 * stateless (`store: false`, whatever the client sent), igw's `function_shell` spelled as
 * OpenAI's `shell`; the adapter sets model and stream.
 */
export function nativeResponsesBody(clientBody: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = { ...clientBody, store: false };
  delete body['stream'];
  const tools = body['tools'];
  if (Array.isArray(tools)) body['tools'] = tools.map((tool: { type?: unknown }) => (tool?.type === 'function_shell' ? { ...tool, type: 'shell' } : tool));
  return body;
}

/** The provider's answer as the client gets it: its model string echoed, never stored, metered. */
export async function handleNativeResponses(call: RequestCall, request: ResponsesRequest, native: NativeRoutes, clientBody: Record<string, unknown>): Promise<void> {
  const body = nativeResponsesBody(clientBody);
  call.log.stream = request.stream === true;
  if (request.stream === true) return streamNativeResponses(call, request, native, body);
  const { result, candidate } = await tryRoutes(
    native.candidates,
    call.signal,
    (route) => timeUpstream(call, () => nativeAdapter(call, route)!.responses(body, { signal: call.signal, upstreamModel: route.route.upstream_model, requestId: call.requestId })),
    fallbackOptions(call),
  );
  const metering = meterCall(call, candidate, consumptionOf(result.usage));
  sendJson(call.response, 200, { ...result.body, model: request.model, store: false, environment_impact: metering.environment_impact, billing_cost: metering.billing_cost }, responseHeaders(call));
}

const FINAL_EVENTS = new Set(['response.completed', 'response.failed', 'response.incomplete']);

/**
 * Native stream pass-through: the provider's events go out as sent, except that every response
 * snapshot echoes the client's model and `store: false`, and the final event carries billing
 * and impact. A failure, or a provider that stops before its final event, ends the stream with
 * error + response.failed, numbered after the provider's last event.
 */
async function streamNativeResponses(call: RequestCall, request: ResponsesRequest, native: NativeRoutes, body: Record<string, unknown>): Promise<void> {
  const { result: opened, candidate } = await tryRoutes(
    native.candidates,
    call.signal,
    (route) =>
      timeUpstream(call, async () => {
        const iterator = nativeAdapter(call, route)!.responsesStream(body, { signal: call.signal, upstreamModel: route.route.upstream_model, requestId: call.requestId })[Symbol.asyncIterator]();
        return { iterator, first: await iterator.next() };
      }),
    fallbackOptions(call),
  );
  const writer = new SseWriter(call.response);
  writer.open(responseHeaders(call));
  let snapshot: Record<string, unknown> | undefined;
  let final: NativeResponseEvent | undefined;
  let sequence = -1;
  let failure: unknown;
  try {
    let step = opened.first;
    while (!step.done) {
      const event = step.value;
      const number = event.payload['sequence_number'];
      if (typeof number === 'number') sequence = number;
      const response = event.payload['response'];
      if (response !== null && typeof response === 'object') {
        Object.assign(response, { model: request.model, store: false });
        snapshot = response as Record<string, unknown>;
      }
      if (FINAL_EVENTS.has(event.type)) final = event;
      else {
        const pushback = writer.send(event.payload, event.type);
        if (pushback !== undefined) await pushback;
      }
      if (call.signal.aborted) break;
      step = await opened.iterator.next();
    }
  } catch (error) {
    failure = error;
  }
  const usage = snapshot?.['usage'] != null ? nativeResponsesUsage(snapshot['usage']) : makeUsage(0, 0);
  const metering = meterCall(call, candidate, consumptionOf(usage));
  if (call.signal.aborted) {
    writer.close();
    return;
  }
  const extras = { environment_impact: metering.environment_impact, billing_cost: metering.billing_cost };
  if (failure === undefined && final !== undefined) {
    Object.assign(final.payload['response'] as object, extras);
    await writer.send(final.payload, final.type);
  } else {
    const error = responsesErrorOf(call, failure ?? new GatewayError('INFERENCE_3105', 'The provider stream ended before the response was complete.'));
    call.log.error_code = error.code;
    if (failure !== undefined && !isGatewayError(failure)) call.app.logger.error('native responses stream failed', { request_id: call.requestId, error: String(failure) });
    const body = { type: 'server_error', code: error.code, message: error.message, param: null };
    await writer.send({ type: 'error', sequence_number: ++sequence, code: error.code, message: error.message, param: null, error: body }, 'error');
    await writer.send({ type: 'response.failed', sequence_number: ++sequence, response: { ...(snapshot ?? {}), status: 'failed', error: { code: error.code, message: error.message }, ...extras } }, 'response.failed');
  }
  writer.close();
}
