import type { MessagesRequest } from './types.js';

/** igw's own request fields (blueprints and skills): never sent upstream. */
const GATEWAY_FIELDS = ['blueprint_id', 'blueprint_config', 'variables', 'skill_ids', 'skill_configs'] as const;

/**
 * The /v1/messages body as the client sent it, for a provider that speaks the Messages API
 * natively (pass-through, DESIGN §5): every field goes up untouched, the ones igw does not know
 * included (thinking, context_management, output_config, fields newer than this gateway: the
 * upstream judges them). Changed: the upstream model in place of the client's string, `stream`
 * set by the call, igw's own fields removed, and `cache_control` removed wherever the surface
 * allows it (top level, system, content blocks, tool_result content, tools — spec:
 * "cache_control blocks silently dropped"). Only those places are touched: a tool's
 * input_schema may legitimately name a property "cache_control".
 */
export function toNativeMessagesBody(request: MessagesRequest, upstreamModel: string, stream: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { ...request, model: upstreamModel };
  for (const field of GATEWAY_FIELDS) delete body[field];
  delete body['stream'];
  delete body['cache_control'];
  if (stream) body['stream'] = true;
  if (Array.isArray(request.system)) body['system'] = request.system.map(withoutCacheControl);
  body['messages'] = request.messages.map((message) =>
    !Array.isArray(message.content)
      ? { ...message }
      : {
          ...message,
          content: (message.content as unknown as ReadonlyArray<Record<string, unknown>>).map((block) => {
            const stripped = withoutCacheControl(block);
            if (block['type'] === 'tool_result' && Array.isArray(block['content'])) stripped['content'] = (block['content'] as object[]).map(withoutCacheControl);
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
