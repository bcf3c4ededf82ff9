import { renderError } from '../errors/render.js';
import { GatewayError } from '../errors/gateway-error.js';
import { responseHeaders, type RequestCall } from '../http/request-call.js';
import { SseWriter } from '../http/sse.js';
import { committedFailure, meterServed, MessageEventsTap, openChat, type InferenceScope, type OpenedNative } from '../inference/index.js';
import type { NativeMessageEvent } from '../providers/types.js';
import { countChatPromptTokens } from '../tokens/tokenizer.js';
import { toNativeMessagesBody } from '../translate/messages/native-request.js';
import type { MessagesErrorBody } from '../translate/messages/types.js';
import { ChatToMessageEvents } from '../translate/stream/chat-to-message-events.js';
import { countMessagesInputTokens } from './messages-count-tokens.js';
import { streamMcpTurns } from './messages-mcp-stream.js';
import { prepareMessagesMcp } from './messages-mcp.js';
import type { PreparedMessages } from './messages-prepared.js';

/**
 * stream=true on /v1/messages: the pipeline opens the stream (fallback until a first event) and
 * drives it. A hub stream goes through the ChatToMessageEvents state machine, framed with event
 * names (with `mcp_servers`, turn by turn: messages-mcp-stream.ts); a native stream goes out as
 * the provider sent it. Billed and logged like any call, but
 * no billing fields on the wire (spec "Streaming").
 */
export async function streamMessages(call: RequestCall, scope: InferenceScope, prepared: PreparedMessages): Promise<void> {
  const { messagesRequest } = prepared;
  // mcp_servers on a route through the hub: igw lists and runs them (messages-mcp-stream.ts).
  const mcp = await prepareMessagesMcp(call, prepared.plan, prepared.body.mcp_servers, prepared.viaHub);
  const plan = mcp?.plan ?? prepared.plan;
  // message_start must carry real input usage, and the hub reports usage only at the end.
  const inputTokens = prepared.viaHub ? countChatPromptTokens(plan.request.messages) : countMessagesInputTokens(messagesRequest);
  const nativeBody = toNativeMessagesBody(prepared.clientBody, plan.request.model, true);
  const opened = await openChat<NativeMessageEvent>(scope, plan, { stream_options: { include_usage: true } }, ({ adapter, context }) =>
    adapter.messagesStream !== undefined && !prepared.viaHub ? () => adapter.messagesStream!(nativeBody, context) : undefined,
  );
  if (opened.native === true) return passThroughStream(call, scope, opened, messagesRequest.model, inputTokens);
  if (opened.direct === undefined) prepared.translation.enter(call);

  const options = { model: messagesRequest.model, inputTokens: opened.direct === undefined ? inputTokens : 0, ...(messagesRequest.stop_sequences === undefined ? {} : { stopSequences: messagesRequest.stop_sequences }) };
  const writer = new SseWriter(call.response);
  writer.open(responseHeaders(call));
  if (mcp !== undefined && opened.direct === undefined) {
    await streamMcpTurns(scope, mcp, opened, writer, options);
    writer.close();
    return;
  }
  const mapper = new ChatToMessageEvents(options);
  const driven = await opened.drive(
    (chunk) => {
      let pushback: Promise<void> | undefined;
      for (const event of mapper.push(chunk)) pushback = writer.send(event, event.type) ?? pushback;
      return pushback;
    },
    // Only the first choice is shown on this surface: once it is blocked, the upstream stops.
    { choices: 1, promptTokens: () => inputTokens },
  );
  meterServed(scope, opened, driven.usage);
  if (driven.aborted) {
    writer.close();
    return;
  }
  let tail;
  if (driven.failure !== undefined) {
    tail = mapper.fail((renderError(driven.failure, 'messages').body as { error: MessagesErrorBody }).error);
  } else {
    tail = mapper.end(driven.usage);
    if (tail[0]?.type === 'error') scope.log.error_code = 'INFERENCE_3105';
  }
  for (const event of tail) await writer.send(event, event.type);
  writer.close();
}

/**
 * Native pass-through stream: the provider's events go out unchanged except the echoed model in
 * message_start; usage is folded (message_delta counts are cumulative) for billing. A failure,
 * or an upstream that ends without message_stop, becomes one `error` event.
 */
async function passThroughStream(call: RequestCall, scope: InferenceScope, opened: OpenedNative<NativeMessageEvent>, clientModel: string, inputTokens: number): Promise<void> {
  const writer = new SseWriter(call.response);
  writer.open(responseHeaders(call));
  const tap = new MessageEventsTap();
  const driven = await opened.drive(({ type, payload, data }) => {
    if (type === 'message_start') {
      const message = payload['message'] as Record<string, unknown> | undefined;
      if (message !== undefined) message['model'] = clientModel;
      return writer.send(payload, type);
    }
    // Every other event is what the upstream sent: its own bytes go out (issue 18 item 3).
    return data === undefined ? writer.send(payload, type) : writer.sendText(data, type);
  }, tap);
  meterServed(scope, opened, tap.usage(() => inputTokens));
  if (driven.aborted) {
    writer.close();
    return;
  }
  const failure = driven.failure ?? (tap.stopped ? undefined : committedFailure(scope, new GatewayError('INFERENCE_3105', 'The upstream stream ended before the message was complete.')));
  if (failure !== undefined) await writer.send(renderError(failure, 'messages').body, 'error');
  writer.close();
}
