import { NO_CONSUMPTION } from '../billing/price.js';
import { meterCall } from '../endpoints/shared/metering.js';
import { responseHeaders, type RequestCall } from '../http/request-call.js';
import { sendJson } from '../http/respond.js';
import { SseWriter } from '../http/sse.js';
import type { CandidateRoute } from '../routing/select.js';
import type { ChatRequest } from '../translate/chat/types.js';
import { shapeChatRequest, type DirectAnswer, type ShapedRequest } from './apply.js';
import { directChunks, directCompletion } from './direct-reply.js';
import { loadBlueprintInput, usesBlueprints, type BlueprintFields } from './load.js';

/**
 * The chat side of blueprints and skills, for every endpoint that runs on the chat hub: load
 * (inline or from the vault), shape the hub request, and answer directly when the blueprint
 * decides before any model call. A request without blueprint fields passes through untouched.
 */
export async function applyBlueprintFields(call: RequestCall, fields: BlueprintFields, hub: ChatRequest): Promise<ShapedRequest> {
  if (!usesBlueprints(fields)) {
    return hub.model === undefined || hub.model === '' ? shapeChatRequest(hub, { skills: [] }) : { request: hub };
  }
  const input = await loadBlueprintInput(fields, { principal: call.principal, headers: call.request.headers, vault: call.app.store.vault });
  return shapeChatRequest(hub, input);
}

/**
 * Books a direct answer: no model call, so zero tokens and zero cost, with the environment
 * impact (all zeros) named after the route that would have served. The request log shows
 * provider `blueprint`.
 */
export function meterDirect(call: RequestCall, candidate: CandidateRoute, answer: DirectAnswer): ReturnType<typeof meterCall> {
  const metering = meterCall(call, candidate, NO_CONSUMPTION);
  call.log.provider = 'blueprint';
  call.log.route = `blueprint/${answer.finishReason}`;
  return metering;
}

/** Writes a direct answer as a chat completion (or stream), with usage zeros and the impact/billing objects. */
export async function sendDirectChat(
  call: RequestCall,
  answer: DirectAnswer,
  options: { model: string; n: number; stream: boolean; includeUsage: boolean; candidate: CandidateRoute },
): Promise<void> {
  const metering = meterDirect(call, options.candidate, answer);
  const meta = { id: `chatcmpl-${call.requestId}`, created: Math.floor(call.app.clock.now() / 1000), model: options.model, n: options.n };
  if (!options.stream) {
    sendJson(call.response, 200, { ...directCompletion(answer, meta), environment_impact: metering.environment_impact, billing_cost: metering.billing_cost }, responseHeaders(call));
    return;
  }
  const writer = new SseWriter(call.response);
  writer.open(responseHeaders(call));
  for (const chunk of directChunks(answer, meta)) await writer.send(chunk);
  if (options.includeUsage) {
    const usage = directCompletion(answer, { ...meta, n: 0 }).usage;
    await writer.send({ id: meta.id, object: 'chat.completion.chunk', created: meta.created, model: meta.model, system_fingerprint: null, choices: [], usage, environment_impact: metering.environment_impact, billing_cost: metering.billing_cost });
  }
  await writer.send('[DONE]');
  writer.close();
}
