import type { PreparedResponses } from '../endpoints/responses.js';
import { inferenceScope, responseHeaders, type RequestCall } from '../http/request-call.js';
import { sendJson } from '../http/respond.js';
import { SseWriter } from '../http/sse.js';
import { makeUsage } from '../translate/chat/types.js';
import { finishResponse, turnOutput } from '../translate/responses/chat-to-responses.js';
import { ChatToResponseEvents } from '../translate/stream/chat-to-response-events.js';
import type { DirectAnswer } from './apply.js';
import { meterCall } from '../inference/meter.js';
import { NO_CONSUMPTION } from '../billing/price.js';
import { directChunks, directCompletion } from '../inference/direct.js';

/**
 * A blueprint's own answer on POST /v1/responses: the chat answer through the same translation
 * as a model's (a `completed` message item, usage zeros), with billing and impact (zero).
 */
export async function sendDirectResponse(call: RequestCall, answer: DirectAnswer, prepared: PreparedResponses, stream: boolean): Promise<void> {
  const candidate = prepared.candidates[0]!;
  const metering = meterCall(inferenceScope(call), candidate, NO_CONSUMPTION, answer);
  const extras = { environment_impact: metering.environment_impact, billing_cost: metering.billing_cost };
  const meta = { id: `chatcmpl-${call.requestId}`, created: prepared.skeleton.created_at, model: prepared.skeleton.model, n: 1 };
  const usage = makeUsage(0, 0);
  if (!stream) {
    const output = turnOutput(directCompletion(answer, meta), prepared.tools, prepared.skeleton.id, 0).items;
    sendJson(call.response, 200, { ...finishResponse(prepared.skeleton, output, answer.finishReason, usage), ...extras }, responseHeaders(call));
    return;
  }
  const mapper = new ChatToResponseEvents({ skeleton: prepared.skeleton, tools: prepared.tools });
  const writer = new SseWriter(call.response);
  writer.open(responseHeaders(call));
  for (const chunk of directChunks(answer, meta)) for (const event of mapper.push(chunk)) await writer.send(event, event.type);
  for (const event of mapper.end(usage, extras)) await writer.send(event, event.type);
  writer.close();
}
