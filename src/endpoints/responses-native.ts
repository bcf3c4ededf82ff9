import { GatewayError } from '../errors/gateway-error.js';
import { responseHeaders, type RequestCall } from '../http/request-call.js';
import { sendJson } from '../http/respond.js';
import { SseWriter } from '../http/sse.js';
import { billingFields, callWithFallback, driveStream, FINAL_RESPONSE_EVENTS, meterCall, consumptionOf, peek, resolveTarget, ResponseEventsTap, type InferenceScope } from '../inference/index.js';
import type { ProviderAdapter } from '../providers/types.js';
import type { CandidateRoute } from '../routing/select.js';
import type { ToolPlan } from '../translate/responses/tools.js';
import type { ResponsesRequest } from '../translate/responses/types.js';
import { responsesErrorOf } from './responses-turns.js';

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
export function nativeWebSearchRoutes(call: RequestCall, scope: InferenceScope, request: ResponsesRequest, tools: ToolPlan): NativeRoutes | undefined {
  const { candidates } = resolveTarget(scope, request.model, ['chat']);
  const native = candidates.filter((candidate) => candidate.provider.kind === 'openai' && candidate.provider.responses_api === true && nativeAdapter(scope, candidate) !== undefined);
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

function nativeAdapter(scope: InferenceScope, candidate: CandidateRoute): Required<Pick<ProviderAdapter, 'responses' | 'responsesStream'>> | undefined {
  try {
    const adapter = scope.deps.providers.get(candidate.providerId);
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
export async function handleNativeResponses(call: RequestCall, scope: InferenceScope, request: ResponsesRequest, native: NativeRoutes, clientBody: Record<string, unknown>): Promise<void> {
  const body = nativeResponsesBody(clientBody);
  scope.log.stream = request.stream === true;
  if (request.stream === true) return streamNativeResponses(call, scope, request, native, body);
  const { result, candidate } = await callWithFallback(scope, native.candidates, {}, ({ adapter, context }) => adapter.responses!(body, context));
  const metering = meterCall(scope, candidate, consumptionOf(result.usage));
  sendJson(call.response, 200, { ...result.body, model: request.model, store: false, ...billingFields(metering) }, responseHeaders(call));
}

/**
 * Native stream pass-through: the provider's events go out as sent, except that every response
 * snapshot echoes the client's model and `store: false`, and the final event carries billing
 * and impact. A failure, or a provider that stops before its final event, ends the stream with
 * error + response.failed, numbered after the provider's last event.
 */
async function streamNativeResponses(call: RequestCall, scope: InferenceScope, request: ResponsesRequest, native: NativeRoutes, body: Record<string, unknown>): Promise<void> {
  const { result: stream, candidate } = await callWithFallback(scope, native.candidates, {}, ({ adapter, context }) => peek(adapter.responsesStream!(body, context)));
  const writer = new SseWriter(call.response);
  writer.open(responseHeaders(call));
  const tap = new ResponseEventsTap();
  const driven = await driveStream(
    scope.signal,
    stream,
    (event) => {
      const response = event.payload['response'];
      const snapshot = response !== null && typeof response === 'object';
      if (snapshot) Object.assign(response, { model: request.model, store: false });
      // The final event waits for billing and impact, known once the stream has ended.
      if (FINAL_RESPONSE_EVENTS.has(event.type)) return undefined;
      if (snapshot) return writer.send(event.payload, event.type);
      // Events without a response snapshot are what the upstream sent: its own bytes go out (issue 18 item 3).
      return event.data === undefined ? writer.send(event.payload, event.type) : writer.sendText(event.data, event.type);
    },
    { tap },
  );
  const metering = meterCall(scope, candidate, consumptionOf(tap.usage()));
  if (driven.aborted) {
    writer.close();
    return;
  }
  const extras = billingFields(metering);
  if (driven.failure === undefined && tap.final !== undefined) {
    Object.assign(tap.final.payload['response'] as object, extras);
    await writer.send(tap.final.payload, tap.final.type);
  } else {
    const error = responsesErrorOf(scope, driven.failure ?? new GatewayError('INFERENCE_3105', 'The provider stream ended before the response was complete.'));
    const errorBody = { type: 'server_error', code: error.code, message: error.message, param: null };
    let sequence = tap.sequence;
    await writer.send({ type: 'error', sequence_number: ++sequence, code: error.code, message: error.message, param: null, error: errorBody }, 'error');
    await writer.send({ type: 'response.failed', sequence_number: ++sequence, response: { ...(tap.snapshot ?? {}), status: 'failed', error: { code: error.code, message: error.message }, ...extras } }, 'response.failed');
  }
  writer.close();
}
