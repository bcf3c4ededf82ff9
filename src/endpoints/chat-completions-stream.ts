import { renderError } from '../errors/render.js';
import { responseHeaders, type RequestCall } from '../http/request-call.js';
import { SseWriter } from '../http/sse.js';
import { billingFields, meterServed, openChat, type InferenceScope } from '../inference/index.js';
import { chatChunkWireText } from '../translate/chat/chunk-text.js';
import type { ChatChunk } from '../translate/chat/types.js';
import { reportIgnored, type PreparedChat } from './chat-completions-prepare.js';

/**
 * stream=true on /v1/chat/completions (DESIGN §5 stream shape): the pipeline opens the stream
 * (fallback until a first chunk) and drives it; this is the chat surface's mapper and writer.
 * The chat wire is the hub's, so mapping is small: the client's model name on every chunk,
 * usage held back from content chunks and sent once, with billing and impact, on a final
 * chunk when the client asked for it (stream_options.include_usage), then [DONE]. A failure
 * after the stream opened is one error event; an abort just closes.
 */
export async function streamChatCompletion(call: RequestCall, scope: InferenceScope, prepared: PreparedChat): Promise<void> {
  const { body, plan } = prepared;
  const model = plan.target.resolved.requested;
  const opened = await openChat(scope, plan);
  reportIgnored(call, prepared, opened);
  const writer = new SseWriter(call.response);
  writer.open(responseHeaders(call));
  let last: ChatChunk | undefined;
  const modelText = JSON.stringify(model);
  const driven = await opened.drive(
    (chunk) => {
      last = chunk;
      // Usage-only chunks are held back: usage goes out once, on the final chunk.
      if (chunk.choices.length === 0) return undefined;
      // The common events come with their JSON text and only need the model name put in
      // (chunk-text.ts, issue 18 item 3); the others are serialised.
      return writer.send(chatChunkWireText(chunk, model, modelText));
    },
    { choices: plan.request.n ?? 1 },
  );
  const metering = meterServed(scope, opened, driven.usage);
  if (driven.failure !== undefined || driven.aborted) {
    if (driven.failure !== undefined) await writer.send(renderError(driven.failure).body);
    writer.close();
    return;
  }
  if (body.stream_options?.include_usage === true) {
    await writer.send({
      id: last?.id ?? `chatcmpl-${scope.requestId}`,
      object: 'chat.completion.chunk',
      created: last?.created ?? Math.floor(scope.deps.clock.now() / 1000),
      model,
      system_fingerprint: last?.system_fingerprint ?? null,
      choices: [],
      usage: driven.usage,
      ...billingFields(metering),
    });
  }
  await writer.send('[DONE]');
  writer.close();
}
