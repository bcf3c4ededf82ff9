import { z } from 'zod';
import { GatewayError } from '../../errors/gateway-error.js';
import { ANTHROPIC_ONLY_BLOCK_TYPES, ANTHROPIC_ONLY_RESULT_BLOCK_TYPES, type MessagesRequest } from '../../translate/messages/types.js';
import { parseForwardCompatible } from './forward-compatible.js';
import { deepestIssue, fieldPath, valueAt } from './zod-issues.js';

/**
 * POST /v1/messages and /v1/messages/count_tokens bodies (spec "POST /v1/messages"). Every
 * field @anthropic-ai/sdk declares for MessageCreateParams (beta types included) is declared
 * here, so typos and bad values in them are refused by name; names the SDK does not know are
 * handled by parseForwardCompatible (DESIGN §5: forwarded on native pass-through, dropped and
 * named when translating; refused with server.strict_params). Blocks are checked per role:
 * user → text, image (base64 or url), tool_result; assistant → text, tool_use, thinking,
 * redacted_thinking; system (mid-conversation) → text. Fields igw does not act on are typed
 * `unknown`: the upstream judges them natively, and translation drops or refuses them
 * (translate/messages/translation-plan.ts).
 */

const cacheControl = z.unknown().optional();
const passedOn = z.unknown().optional();

const textBlock = z.object({ type: z.literal('text'), text: z.string(), cache_control: cacheControl, citations: passedOn }).strict();

const imageSource = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('base64'),
      media_type: z.enum(['image/jpeg', 'image/png', 'image/gif', 'image/webp']),
      data: z.string().min(1),
    })
    .strict(),
  z.object({ type: z.literal('url'), url: z.string().min(1) }).strict(),
]);
const imageBlock = z.object({ type: z.literal('image'), source: imageSource, cache_control: cacheControl, transformations: passedOn }).strict();

/**
 * A block type the SDK declares and only Anthropic reads (types.ts ANTHROPIC_ONLY_BLOCK_TYPES):
 * its fields are the upstream's to judge, so only the type is checked here.
 */
function anthropicOnlyBlock<Type extends string>(type: Type) {
  return z.looseObject({ type: z.literal(type) });
}

const toolUseBlock = z
  .object({
    type: z.literal('tool_use'),
    id: z.string().min(1),
    name: z.string().min(1),
    input: z.record(z.string(), z.unknown()),
    cache_control: cacheControl,
    caller: passedOn,
    toolset_name: passedOn,
  })
  .strict();

const toolResultBlock = z
  .object({
    type: z.literal('tool_result'),
    tool_use_id: z.string().min(1),
    content: z.union([z.string(), z.array(z.discriminatedUnion('type', [textBlock, imageBlock, ...ANTHROPIC_ONLY_RESULT_BLOCK_TYPES.map(anthropicOnlyBlock)]))]).optional(),
    is_error: z.boolean().optional(),
    cache_control: cacheControl,
    toolset_name: passedOn,
  })
  .strict();

/** Earlier turns' reasoning, sent back by clients that run with thinking on (Claude Code). */
const thinkingBlock = z.object({ type: z.literal('thinking'), thinking: z.string(), signature: z.string(), cache_control: cacheControl }).strict();
const redactedThinkingBlock = z.object({ type: z.literal('redacted_thinking'), data: z.string(), cache_control: cacheControl }).strict();

/** Beta mid-conversation tool changes (tool_addition / tool_removal): forwarded natively, refused when translating. */
const toolChangeBlock = (type: 'tool_addition' | 'tool_removal') => z.object({ type: z.literal(type), tool: z.record(z.string(), z.unknown()), cache_control: cacheControl }).strict();
const systemBlock = z.discriminatedUnion('type', [textBlock, toolChangeBlock('tool_addition'), toolChangeBlock('tool_removal')]);

const anthropicOnlyBlocks = ANTHROPIC_ONLY_BLOCK_TYPES.map(anthropicOnlyBlock);
const userBlock = z.discriminatedUnion('type', [textBlock, imageBlock, toolResultBlock, ...anthropicOnlyBlocks]);
const assistantBlock = z.discriminatedUnion('type', [textBlock, toolUseBlock, thinkingBlock, redactedThinkingBlock, ...anthropicOnlyBlocks]);

const message = z.discriminatedUnion('role', [
  z.object({ role: z.literal('user'), content: z.union([z.string(), z.array(userBlock).min(1)]) }).strict(),
  z.object({ role: z.literal('assistant'), content: z.union([z.string(), z.array(assistantBlock)]) }).strict(),
  // SystemMessageParam (beta BetaSystemMessageParam): an instruction at this point of the conversation.
  z
    .object({
      role: z.literal('system'),
      content: z.union([z.string(), z.array(systemBlock)]).optional(),
      clear_at: passedOn,
      output_config: passedOn,
    })
    .strict(),
]);

const customTool = z
  .object({
    type: z.literal('custom').nullable().optional(),
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'tool names use letters, digits, _ or -, at most 64'),
    description: z.string().optional(),
    input_schema: z.record(z.string(), z.unknown()),
    strict: z.boolean().optional(),
    cache_control: cacheControl,
    allowed_callers: passedOn,
    defer_loading: passedOn,
    eager_input_streaming: passedOn,
    input_examples: passedOn,
  })
  .strict();

/**
 * Anthropic-run tools (`web_search_20250305`, `bash_20250124`, `mcp_toolset`, …): their type
 * names a server-side tool, so their fields are the upstream's to judge (forwarded natively,
 * refused by name when translating: nobody could run them).
 */
const serverTool = z.looseObject({ type: z.string().refine((type) => type !== 'custom', 'custom tools need input_schema'), name: z.string().min(1) });

const tool = z.union([customTool, serverTool]);

const toolChoice = z.discriminatedUnion('type', [
  z.object({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().optional() }).strict(),
  z.object({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().optional() }).strict(),
  z.object({ type: z.literal('none') }).strict(),
  z.object({ type: z.literal('tool'), name: z.string().min(1), disable_parallel_tool_use: z.boolean().optional() }).strict(),
]);

const system = z.union([z.string(), z.array(textBlock)]);

/** JSONOutputFormat: structured output, honoured as the hub's json_schema response_format. */
const jsonOutputFormat = z.object({ type: z.literal('json_schema'), schema: z.record(z.string(), z.unknown()) }).strict();

const outputConfig = z
  .object({
    effort: z.enum(['low', 'medium', 'high', 'xhigh', 'max']).nullable().optional(),
    format: jsonOutputFormat.nullable().optional(),
    task_budget: passedOn,
  })
  .strict();

/** Fields of MessageCreateParams and MessageCountTokensParams both (beta included). */
/** The beta `mcp_servers` entry (mcp-client-2025-04-04, BetaRequestMCPServerURLDefinition): forwarded natively, run by igw on a translated route. */
const mcpServer = z
  .object({
    type: z.literal('url'),
    url: z.string().min(1),
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'an MCP server name uses letters, digits, _ or -, at most 64'),
    authorization_token: z.string().nullable().optional(),
    tool_configuration: z.object({ enabled: z.boolean().nullable().optional(), allowed_tools: z.array(z.string()).nullable().optional() }).strict().nullable().optional(),
  })
  .strict();

const sharedFields = {
  messages: z.array(message).min(1),
  system: system.optional(),
  tools: z.array(tool).optional(),
  tool_choice: toolChoice.optional(),
  thinking: passedOn,
  output_config: outputConfig.optional(),
  output_format: jsonOutputFormat.nullable().optional(),
  cache_control: cacheControl,
  speed: passedOn,
  billing_policy: passedOn,
  compaction: passedOn,
  context_management: passedOn,
  mcp_servers: z.array(mcpServer).optional(),
};

export const messagesSchema = z
  .object({
    ...sharedFields,
    model: z.string().min(1),
    max_tokens: z.number().int().min(1),
    stop_sequences: z.array(z.string()).optional(),
    // Not in the newest SDK types, still accepted by the API and sent by older clients.
    temperature: z.number().min(0).max(1).optional(),
    top_p: z.number().min(0).max(1).optional(),
    top_k: z.number().int().min(0).optional(),
    stream: z.boolean().optional(),
    metadata: z.object({ user_id: z.string().nullable().optional() }).strict().optional(),
    service_tier: passedOn,
    container: passedOn,
    diagnostics: passedOn,
    inference_geo: passedOn,
    fallback_credit_token: passedOn,
    fallbacks: passedOn,
    thread: passedOn,
    user_profile_id: passedOn,
    workspace_id: passedOn,
    // igw extension: blueprints and skills, as on chat (src/blueprints; README "Blueprints and skills").
    blueprint_id: z.string().uuid().optional(),
    blueprint_config: z.record(z.string(), z.unknown()).optional(),
    variables: z.record(z.string(), z.unknown()).optional(),
    skill_ids: z.array(z.string()).optional(),
    skill_configs: z.array(z.record(z.string(), z.unknown())).optional(),
  })
  .strict();

export const countTokensSchema = z
  .object({
    ...sharedFields,
    model: z.string().optional(),
  })
  .strict();

export type MessagesBody = z.output<typeof messagesSchema>;
export type CountTokensBody = z.output<typeof countTokensSchema>;


const ALLOWED_BLOCKS = { user: `text, image, tool_result, ${ANTHROPIC_ONLY_BLOCK_TYPES.join(', ')}`, assistant: `text, tool_use, thinking, redacted_thinking, ${ANTHROPIC_ONLY_BLOCK_TYPES.join(', ')}`, system: 'text, tool_addition, tool_removal' } as const;

/**
 * Forward-compatible validation (forward-compatible.ts) with Messages-specific wording: a bad
 * block is named as messages[i].content[j]. `data` has the unknown names removed (the input of
 * translation); `unknownFields` names them. With `strict` an unknown name is refused instead.
 */
export function parseMessagesBody<Schema extends typeof messagesSchema | typeof countTokensSchema>(
  schema: Schema,
  body: unknown,
  strict: boolean,
): { data: z.output<Schema>; unknownFields: string[] } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new GatewayError('VALIDATION_4005', 'The request body must be a JSON object.', { field: 'body' });
  }
  const parsed = parseForwardCompatible(schema, body, strict);
  if (parsed.success) return { data: parsed.data as z.output<Schema>, unknownFields: parsed.unknownFields };
  const issue = deepestIssue(parsed.issues[0]!);
  if (issue.code === 'unrecognized_keys') {
    const field = fieldPath([...issue.path, issue.keys?.[0] ?? '']);
    throw new GatewayError('VALIDATION_4005', `Unknown parameter "${field}" (server.strict_params is on).`, { field });
  }
  const field = fieldPath(issue.path);
  const blockPath = issue.path.length >= 4 && issue.path[0] === 'messages' && issue.path[2] === 'content' && typeof issue.path[3] === 'number' ? issue.path.slice(0, 4) : undefined;
  if (blockPath !== undefined) {
    const block = fieldPath(blockPath);
    const role = valueAt(body, [blockPath[0]!, blockPath[1]!, 'role']);
    const type = valueAt(body, [...blockPath, 'type']);
    const roleName = role === 'assistant' ? 'assistant' : role === 'system' ? 'system' : 'user';
    const reason =
      issue.path.length === 5 && issue.path[4] === 'type'
        ? `blocks of type ${JSON.stringify(type)} are not allowed in ${roleName} messages (allowed: ${ALLOWED_BLOCKS[roleName]})`
        : `"${field}": ${issue.message}`;
    throw new GatewayError('VALIDATION_4005', `Invalid content block ${block}: ${reason}.`, { field, block });
  }
  if (issue.code !== 'custom' && issue.path.length > 0 && valueAt(body, issue.path) === undefined) {
    throw new GatewayError('VALIDATION_4002', `Missing required field "${field}".`, { field });
  }
  throw new GatewayError('VALIDATION_4005', `Invalid value for "${field || 'body'}": ${issue.message}.`, { field: field || 'body' });
}

/** The validated body as the translation input (unknown names already removed). */
export function toMessagesRequest(body: MessagesBody): MessagesRequest {
  return body as MessagesRequest;
}
