import type { MessagesRequest } from './types.js';

/** Fields accepted on the surface that are never sent upstream, even to a native Messages API. */
const DROPPED_FIELDS = ['thinking', 'service_tier', 'stream'] as const;

/**
 * The validated /v1/messages body as the body for a provider that speaks the Messages API
 * natively (pass-through): the upstream model in place of the client's string, `cache_control`
 * removed wherever the surface allows it (system, content blocks, tool_result content, tools —
 * spec: "cache_control blocks silently dropped"), and the surface-only fields dropped. Only those
 * places are touched: a tool's input_schema may legitimately name a property "cache_control".
 */
export function toNativeMessagesBody(request: MessagesRequest, upstreamModel: string, stream: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { ...request, model: upstreamModel };
  for (const field of DROPPED_FIELDS) delete body[field];
  if (stream) body['stream'] = true;
  if (Array.isArray(request.system)) body['system'] = request.system.map(withoutCacheControl);
  body['messages'] = request.messages.map((message) =>
    typeof message.content === 'string'
      ? { ...message }
      : {
          ...message,
          content: message.content.map((block) => {
            const stripped = withoutCacheControl(block);
            if (block.type === 'tool_result' && Array.isArray(block.content)) stripped['content'] = block.content.map(withoutCacheControl);
            return stripped;
          }),
        },
  );
  if (request.tools !== undefined) body['tools'] = request.tools.map(withoutCacheControl);
  return body;
}

function withoutCacheControl<T extends object>(value: T): Record<string, unknown> {
  const { cache_control: _dropped, ...rest } = value as Record<string, unknown>;
  return rest;
}
