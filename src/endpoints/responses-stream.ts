import { responseHeaders, type RequestCall } from '../http/request-call.js';
import { SseWriter } from '../http/sse.js';
import { billingFields, committedFailure, meterServed, openChat, type InferenceScope, type OpenedChat } from '../inference/index.js';
import { makeUsage } from '../translate/chat/types.js';
import type { ResponseStreamEvent } from '../translate/responses/types.js';
import { ChatToResponseEvents } from '../translate/stream/chat-to-response-events.js';
import { addUsage, continuedRequest, nextTurnPlan, type PreparedResponses } from './responses-turns.js';
import { hasServerTools, runServerTools } from './responses-server-tools.js';

/**
 * stream=true (spec "Streaming"): the pipeline opens each model turn (fallback until a first
 * chunk, so a provider that fails before any output falls through or becomes the normal error
 * envelope) and drives it through the ChatToResponseEvents state machine, framed with event
 * names like OpenAI's. After the first turn the stream is committed: a failure ends it with
 * error + response.failed. Server-side tool turns (file_search) continue the same stream.
 * Billing and impact ride on the final event (response.completed or response.failed).
 */
export async function streamResponses(call: RequestCall, scope: InferenceScope, prepared: PreparedResponses): Promise<void> {
  const includeUsage = { stream_options: { include_usage: true } };
  let plan = prepared.plan;
  let opened: OpenedChat = await openChat(scope, plan, includeUsage);
  const mapper = new ChatToResponseEvents({ skeleton: prepared.skeleton, tools: prepared.tools });
  const writer = new SseWriter(call.response);
  writer.open(responseHeaders(call));
  const send = async (events: ResponseStreamEvent[]): Promise<void> => {
    for (const event of events) {
      const pushback = writer.send(event, event.type);
      if (pushback !== undefined) await pushback;
    }
  };
  const sink = (chunk: Parameters<Parameters<OpenedChat['drive']>[0]>[0]): Promise<void> | undefined => {
    let pushback: Promise<void> | undefined;
    for (const event of mapper.push(chunk)) pushback = writer.send(event, event.type) ?? pushback;
    return pushback;
  };

  // What igw did before the model ran: MCP listings and the calls the client approved.
  for (const item of prepared.leading) await send(mapper.serverItem(() => item));

  let usage = makeUsage(0, 0);
  let served = opened as Pick<OpenedChat, 'candidate' | 'direct'>;
  let failure: unknown;
  let aborted = false;
  for (let turn = 0; ; turn++) {
    // Output railguards (blueprints) hold back afresh for each model turn; a blocked answer stops the upstream.
    const driven = await opened.drive(sink, { choices: 1 });
    usage = addUsage(usage, driven.usage);
    failure = driven.failure;
    aborted = driven.aborted;
    if (failure !== undefined || aborted || mapper.state !== 'turn_finished') break;
    const internalCalls = mapper.internalCalls;
    if (internalCalls.length === 0 || !hasServerTools(prepared.serverTools)) break;

    let results;
    let approvals = 0;
    try {
      results = await runServerTools(internalCalls, prepared.serverTools, {
        fileSearchStarted: (query) => {
          const started = mapper.fileSearchStarted(query);
          // Written at once (the writer queues synchronously); backpressure is awaited at the end event.
          void send(started.events);
          return started.handle;
        },
        fileSearchEnded: (handle, status, found) => send(mapper.fileSearchCompleted(handle, found, status)),
        mcpCallStarted: (pending) => {
          const started = mapper.mcpCallStarted(pending);
          void send(started.events);
          return started.handle;
        },
        mcpCallEnded: (handle, item) => send(mapper.mcpCallCompleted(handle, item)),
        mcpApprovalRequested: (request) => {
          approvals += 1;
          return send(mapper.serverItem(request));
        },
      });
    } catch (error) {
      failure = error;
      break;
    }
    if (mapper.calledClientTools || approvals > 0 || turn + 1 >= prepared.maxTurns) break;
    plan = nextTurnPlan(plan, served, continuedRequest(plan.request, { choices: [{ index: 0, message: { role: 'assistant', content: mapper.text, tool_calls: null }, finish_reason: mapper.finishReason, logprobs: null }] }, internalCalls, results));
    mapper.nextTurn();
    try {
      opened = await openChat(scope, plan, includeUsage);
      served = opened;
    } catch (error) {
      failure = error;
      break;
    }
  }

  const metering = meterServed(scope, served, usage);
  if (aborted || scope.signal.aborted) {
    writer.close();
    return;
  }
  const extras = billingFields(metering);
  let tail: ResponseStreamEvent[];
  if (failure !== undefined) {
    const error = committedFailure(scope, failure, 'The provider failed.');
    tail = mapper.fail({ code: error.code, message: error.message }, extras, usage);
  } else {
    tail = mapper.end(usage, extras);
    const last = tail[tail.length - 1];
    if (last?.type === 'response.failed') scope.log.error_code = last.response.error?.code ?? 'INFERENCE_3105';
  }
  await send(tail);
  writer.close();
}
