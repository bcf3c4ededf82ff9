import { inferenceScope, responseHeaders, type RequestCall } from '../http/request-call.js';
import { sendJson } from '../http/respond.js';
import { SseWriter } from '../http/sse.js';
import type { CandidateRoute } from '../routing/select.js';
import { makeUsage } from '../translate/chat/types.js';
import { chatToMessages } from '../translate/messages/chat-to-messages.js';
import { ChatToMessageEvents } from '../translate/stream/chat-to-message-events.js';
import type { DirectAnswer } from './apply.js';
import { meterCall } from '../inference/meter.js';
import { NO_CONSUMPTION } from '../billing/price.js';
import { directChunks, directCompletion } from '../inference/direct.js';

/**
 * A blueprint's own answer on POST /v1/messages: the chat answer through the same translation as
 * a model's (stop_reason `end_turn`, usage zeros), billing fields only when not streaming.
 */
export async function sendDirectMessage(call: RequestCall, answer: DirectAnswer, options: { model: string; stream: boolean; candidate: CandidateRoute; stopSequences?: string[] | undefined }): Promise<void> {
  const metering = meterCall(inferenceScope(call), options.candidate, NO_CONSUMPTION, answer);
  const meta = { id: `chatcmpl-${call.requestId}`, created: Math.floor(call.app.clock.now() / 1000), model: options.model, n: 1 };
  const stopSequences = options.stopSequences === undefined ? {} : { stopSequences: options.stopSequences };
  if (!options.stream) {
    const message = chatToMessages(directCompletion(answer, meta), { model: options.model, ...stopSequences });
    sendJson(call.response, 200, { ...message, environment_impact: metering.environment_impact, billing_cost: metering.billing_cost }, responseHeaders(call));
    return;
  }
  const mapper = new ChatToMessageEvents({ model: options.model, inputTokens: 0, ...stopSequences });
  const writer = new SseWriter(call.response);
  writer.open(responseHeaders(call));
  for (const chunk of directChunks(answer, meta)) for (const event of mapper.push(chunk)) await writer.send(event, event.type);
  for (const event of mapper.end(makeUsage(0, 0))) await writer.send(event, event.type);
  writer.close();
}
