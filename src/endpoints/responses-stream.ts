import { responseHeaders, timeUpstream, type RequestCall } from '../http/request-call.js';
import { SseWriter } from '../http/sse.js';
import { tryRoutes } from '../routing/fallback.js';
import type { CandidateRoute } from '../routing/select.js';
import { countChatPromptTokens, countTokens } from '../tokens/tokenizer.js';
import { makeUsage, type ChatChunk, type ChatMessage, type ChatRequest } from '../translate/chat/types.js';
import { fileSearchResultsText } from '../translate/responses/file-search-text.js';
import { mcpCallItem } from '../translate/responses/mcp-items.js';
import { fileSearchQuery, itemId } from '../translate/responses/output-items.js';
import type { ResponseStreamEvent } from '../translate/responses/types.js';
import { ChatToResponseEvents } from '../translate/stream/chat-to-response-events.js';
import { addUsage, consumptionOf, continuedRequest, responsesErrorOf, type PreparedResponses } from './responses.js';
import { meterCall } from './shared/metering.js';
import { ChunkGuard } from '../blueprints/guard-output.js';
import { fallbackOptions } from './shared/resolve.js';

interface OpenedTurn {
  iterator: AsyncIterator<ChatChunk>;
  first: IteratorResult<ChatChunk>;
}

/**
 * stream=true (spec "Streaming"): hub chunks through the ChatToResponseEvents state machine,
 * framed with event names like OpenAI's. The first chunk is awaited inside the route loop, so a
 * provider that fails before any output falls through to the next route or becomes the normal
 * error envelope; after that the stream is committed and a failure ends it with error +
 * response.failed. file_search turns continue the same stream. Billing and impact ride on the
 * final event (response.completed or response.failed).
 */
export async function streamResponses(call: RequestCall, prepared: PreparedResponses): Promise<void> {
  const openTurn = (hub: ChatRequest, candidates: CandidateRoute[]) =>
    tryRoutes(candidates, call.signal, (route) =>
      timeUpstream(call, async (): Promise<OpenedTurn> => {
        const iterator = call.app.providers
          .get(route.providerId)
          .chatStream({ ...hub, stream: true, stream_options: { include_usage: true } }, { signal: call.signal, upstreamModel: route.route.upstream_model, requestId: call.requestId, ...prepared.modelHints })
          [Symbol.asyncIterator]();
        return { iterator, first: await iterator.next() };
      }),
      fallbackOptions(call),
    );

  let { result: opened, candidate } = await openTurn(prepared.hub, prepared.candidates);
  const mapper = new ChatToResponseEvents({ skeleton: prepared.skeleton, tools: prepared.tools });
  const writer = new SseWriter(call.response);
  writer.open(responseHeaders(call));
  const send = async (events: ResponseStreamEvent[]): Promise<void> => {
    for (const event of events) {
      const pushback = writer.send(event, event.type);
      if (pushback !== undefined) await pushback;
    }
  };

  // What igw did before the model ran: MCP listings and the calls the client approved.
  for (const item of prepared.mcp?.leading ?? []) await send(mapper.serverItem(() => item));

  let usage = makeUsage(0, 0);
  let hub = prepared.hub;
  let failure: unknown;
  for (let turn = 0; ; turn++) {
    // Output railguards (blueprints): the chat hold-back, afresh for each model turn.
    const guard = prepared.outputGuard === undefined ? undefined : new ChunkGuard(prepared.outputGuard);
    try {
      let step = opened.first;
      let last: ChatChunk | undefined;
      while (!step.done) {
        last = step.value;
        if (guard === undefined || guard.apply(step.value)) await send(mapper.push(step.value));
        if (call.signal.aborted) break;
        if (guard !== undefined && guard.blocked >= 1) {
          // The answer is blocked: nothing more of this turn will be shown, so stop the upstream.
          await opened.iterator.return?.();
          break;
        }
        step = await opened.iterator.next();
      }
      if (guard !== undefined && last !== undefined && !call.signal.aborted) {
        for (const chunk of guard.flush({ id: last.id, created: last.created, model: last.model, system_fingerprint: null })) await send(mapper.push(chunk));
      }
    } catch (error) {
      failure = error;
    }
    // The upstream did not report usage (some servers ignore include_usage): count it ourselves.
    usage = addUsage(usage, mapper.reportedUsage ?? makeUsage(countChatPromptTokens(hub.messages), countTokens(mapper.outputText)));
    if (failure !== undefined || call.signal.aborted || mapper.state !== 'turn_finished') break;
    const internalCalls = mapper.internalCalls;
    if (internalCalls.length === 0) break;

    const results: ChatMessage[] = [];
    let approvals = 0;
    try {
      for (const internal of internalCalls) {
        const mcp = prepared.tools.kinds.get(internal.function.name) === 'mcp' ? prepared.mcp?.session : undefined;
        if (mcp !== undefined) {
          // A call that needs the client's approval ends the answer with its request (OpenAI's flow).
          if (mcp.needsApproval(internal)) {
            await send(mapper.serverItem((index) => mcp.approvalRequest(internal, itemId('mcp_approval_request', prepared.skeleton.id, index))));
            approvals += 1;
            continue;
          }
          const { serverLabel, name } = mcp.describe(internal);
          const started = mapper.mcpCallStarted((index) => mcpCallItem(itemId('mcp_call', prepared.skeleton.id, index), serverLabel, name, internal.function.arguments, null));
          await send(started.events);
          const ran = await mcp.run(internal, itemId('mcp_call', prepared.skeleton.id, started.handle));
          await send(mapper.mcpCallCompleted(started.handle, ran.item));
          results.push(ran.message);
          continue;
        }
        if (prepared.fileSearch === undefined) continue;
        const query = fileSearchQuery(internal);
        const started = mapper.fileSearchStarted(query);
        await send(started.events);
        let found;
        try {
          found = await prepared.fileSearch.run(query);
        } catch (error) {
          await send(mapper.fileSearchCompleted(started.handle, null, 'failed'));
          throw error;
        }
        await send(mapper.fileSearchCompleted(started.handle, prepared.fileSearch.includeResults ? found : null));
        results.push({ role: 'tool', tool_call_id: internal.id, content: fileSearchResultsText(query, found) });
      }
    } catch (error) {
      failure = error;
      break;
    }
    if (mapper.calledClientTools || approvals > 0 || turn + 1 >= prepared.maxTurns) break;
    hub = continuedRequest(hub, { choices: [{ index: 0, message: { role: 'assistant', content: mapper.text, tool_calls: null }, finish_reason: mapper.finishReason, logprobs: null }] }, internalCalls, results);
    mapper.nextTurn();
    try {
      // Later turns go to the route that answered first, so one answer is one route's work.
      ({ result: opened, candidate } = await openTurn(hub, [candidate, ...prepared.candidates.filter((other) => other !== candidate)]));
    } catch (error) {
      failure = error;
      break;
    }
  }

  const metering = meterCall(call, candidate, consumptionOf(usage));
  if (call.signal.aborted) {
    writer.close();
    return;
  }
  const extras = { environment_impact: metering.environment_impact, billing_cost: metering.billing_cost };
  let tail: ResponseStreamEvent[];
  if (failure !== undefined) {
    const error = responsesErrorOf(call, failure);
    call.log.error_code = error.code;
    tail = mapper.fail(error, extras, usage);
  } else {
    tail = mapper.end(usage, extras);
    const last = tail[tail.length - 1];
    if (last?.type === 'response.failed') call.log.error_code = last.response.error?.code ?? 'INFERENCE_3105';
  }
  await send(tail);
  writer.close();
}
