import type { RequestCall } from '../http/request-call.js';
import { sendJson } from '../http/respond.js';
import { countChatPromptTokens, countTokens } from '../tokens/tokenizer.js';
import { messagesToChat } from '../translate/messages/messages-to-chat.js';
import { isServerTool, planMessagesTranslation } from '../translate/messages/translation-plan.js';
import type { MessagesRequest } from '../translate/messages/types.js';
import { IgnoredParams } from './shared/ignored-params.js';
import { GatewayError } from '../errors/gateway-error.js';
import { countTokensSchema, parseMessagesBody } from './validation/messages-schema.js';

/** Declared count_tokens fields the local count does not weigh (besides translation-plan's). */
const UNCOUNTED_FIELDS = ['output_config', 'output_format', 'mcp_servers'] as const;

/** DESIGN §5: `compat-version` (spec) or `anthropic-version` (what Anthropic SDKs send); any value. */
export function requireCompatVersion(call: RequestCall): void {
  const value = call.request.headers['compat-version'] ?? call.request.headers['anthropic-version'];
  if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) {
    throw new GatewayError('VALIDATION_4002', 'Missing required header "compat-version" (or "anthropic-version"), e.g. compat-version: 2023-06-01.', { field: 'compat-version' });
  }
}

/**
 * Input tokens of a message-style prompt with the real tokenizer (spec "POST
 * /v1/messages/count_tokens"): system and messages as the hub prompt (images at the tokenizer's
 * fixed high-detail rate per image), plus the tools serialized as JSON (name, description, schema).
 */
export function countMessagesInputTokens(request: Pick<MessagesRequest, 'messages' | 'system' | 'tools'>): number {
  const hub = messagesToChat({ model: '', max_tokens: 1, messages: request.messages, ...(request.system === undefined ? {} : { system: request.system }) });
  return countChatPromptTokens(hub.messages) + countToolTokens(request.tools);
}

function countToolTokens(tools: MessagesRequest['tools']): number {
  if (tools === undefined || tools.length === 0) return 0;
  // An Anthropic server tool has no schema here: its definition as sent is the best estimate.
  return countTokens(JSON.stringify(tools.map((tool) => (isServerTool(tool) ? tool : { name: tool.name, description: tool.description, input_schema: tool.input_schema }))));
}

/**
 * POST /v1/messages/count_tokens: `{input_tokens}`; free, no billing fields, never a silent 0.
 * Counted by igw itself, so every field but system, messages and tools is left out of the count:
 * unknown and declared ones alike are named in igw-ignored-params (DESIGN §5).
 */
export async function handleMessagesCountTokens(call: RequestCall): Promise<void> {
  requireCompatVersion(call);
  const { data: body, unknownFields } = parseMessagesBody(countTokensSchema, call.body, call.app.config.server.strict_params);
  if (body.model !== undefined) call.log.model = body.model;
  const request = body as unknown as MessagesRequest;
  const plan = planMessagesTranslation(request, { reasoning: true });
  const ignored = new IgnoredParams().add(...unknownFields, ...plan.ignored);
  for (const field of UNCOUNTED_FIELDS) if (request[field] !== undefined && request[field] !== null) ignored.add(field);
  ignored.report(call);
  const inputTokens = countMessagesInputTokens(request);
  call.log.input_tokens = inputTokens;
  sendJson(call.response, 200, { input_tokens: inputTokens }, { ...call.headers });
}
