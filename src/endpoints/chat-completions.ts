import { inferenceScope, responseHeaders, type RequestCall } from '../http/request-call.js';
import { sendJson } from '../http/respond.js';
import { completeChat, meterServed, type InferenceScope, type Served } from '../inference/index.js';
import { prepareChat, reportIgnored, type PreparedChat } from './chat-completions-prepare.js';
import { streamChatCompletion } from './chat-completions-stream.js';
import { blueprintAccess } from './shared/blueprint-access.js';

/** The JSON answer (stream false): the pipeline's completion, metered, as the chat completion object. */
export async function answerChat(scope: InferenceScope, prepared: PreparedChat): Promise<{ body: Record<string, unknown>; served: Served }> {
  const completed = await completeChat(scope, prepared.plan);
  const metering = meterServed(scope, completed, completed.response.usage);
  // The completion is this call's own fresh object: the answer's fields are set on it rather than
  // spread into a copy (the same keys in the same order; a spread copy cost ~2 µs a request).
  const body = completed.response as unknown as Record<string, unknown>;
  body['model'] = prepared.plan.target.resolved.requested;
  body['environment_impact'] = metering.environment_impact;
  body['billing_cost'] = metering.billing_cost;
  return { body, served: completed };
}

/** POST /v1/chat/completions (spec "Chat completion object"; DESIGN §5 stream shape): parse → pipeline → writer. */
export async function handleChatCompletions(call: RequestCall): Promise<void> {
  const scope = inferenceScope(call);
  const prepared = await prepareChat(scope, { server: call.app.config.server, access: blueprintAccess(call) }, call.body);
  if (prepared.clientRequestId !== undefined) call.headers['x-client-request-id'] = prepared.clientRequestId;
  if (prepared.body.stream === true) return streamChatCompletion(call, scope, prepared);
  const answer = await answerChat(scope, prepared);
  reportIgnored(call, prepared, answer.served);
  sendJson(call.response, 200, answer.body, responseHeaders(call));
}
