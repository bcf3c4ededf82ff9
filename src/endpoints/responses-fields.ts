import { GatewayError } from '../errors/gateway-error.js';
import type { ResponsesRequest } from '../translate/responses/types.js';
import type { ResponsesBody } from './validation/responses-schema.js';

/**
 * What /v1/responses does, when it translates through the chat hub, with the SDK-declared fields
 * the hub does not carry (DESIGN §5): dropped and named in igw-ignored-params when their loss
 * does not change the answer, refused by name when it would. Native pass-through (a provider
 * that speaks the Responses API) forwards them all.
 */

/** OpenAI platform features with no effect on the answer's content. */
const UNHONOURED_FIELDS = ['service_tier', 'prompt_cache_key', 'prompt_cache_retention', 'prompt_cache_options', 'safety_identifier', 'client_metadata', 'context_management', 'moderation', 'top_logprobs'] as const;

/** `include` values the translated answer honours (reasoning items carry `encrypted_content: null`). */
const HONOURED_INCLUDES = new Set(['file_search_call.results', 'reasoning.encrypted_content']);

/** The declared fields of this body that a translated answer drops, as igw-ignored-params names them. */
export function unhonouredResponsesFields(body: ResponsesBody): string[] {
  const names: string[] = UNHONOURED_FIELDS.filter((field) => body[field] != null);
  if (body.store === true) names.push('store');
  if (body.truncation === 'auto') names.push('truncation');
  if (body.text?.verbosity != null) names.push('text.verbosity');
  for (const field of ['summary', 'generate_summary', 'context', 'mode'] as const) if (body.reasoning?.[field] != null) names.push(`reasoning.${field}`);
  if (body.stream_options?.include_obfuscation === true) names.push('stream_options.include_obfuscation');
  for (const value of body.include ?? []) if (!HONOURED_INCLUDES.has(value)) names.push(`include[]=${value}`);
  const hints = new Set<string>();
  for (const tool of body.tools ?? []) {
    const members = tool.type === 'function' || tool.type === 'custom' ? [{ prefix: 'tools[]', member: tool }] : tool.type === 'namespace' ? tool.tools.map((member) => ({ prefix: 'tools[].tools[]', member })) : [];
    for (const { prefix, member } of members) {
      for (const hint of ['allowed_callers', 'defer_loading', 'output_schema'] as const) if ((member as Partial<Record<typeof hint, unknown>>)[hint] != null) hints.add(`${prefix}.${hint}`);
    }
  }
  names.push(...hints);
  return names;
}

/** Declared fields whose loss would change a translated answer: refused by name. */
export function refuseUnservableResponsesFields(body: ResponsesBody): void {
  const policy = body.moderation?.policy;
  if (policy?.input?.mode === 'block' || policy?.output?.mode === 'block') {
    throw new GatewayError('VALIDATION_4005', '"moderation" with mode "block" is not supported by igw: it runs no moderation, so it cannot block flagged content; send the request without it or with mode "score".', { field: 'moderation' });
  }
}

/**
 * The request without the tools of these types, and what was dropped (`tools[].type=web_search`,
 * for igw-ignored-params). With no tool left, tool_choice goes too (the model answers freely).
 */
export function withoutTools(request: ResponsesRequest, types: readonly string[]): { request: ResponsesRequest; dropped: string[] } {
  const dropped = new Set<string>();
  const tools = (request.tools ?? []).filter((tool) => {
    const drop = types.includes(tool.type);
    if (drop) dropped.add(`tools[].type=${tool.type}`);
    return !drop;
  });
  if (dropped.size === 0) return { request, dropped: [] };
  const next: ResponsesRequest = { ...request, tools };
  if (tools.length === 0) delete next.tool_choice;
  return { request: next, dropped: [...dropped] };
}
