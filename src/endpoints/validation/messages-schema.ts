import { z } from 'zod';
import { GatewayError } from '../../errors/gateway-error.js';
import type { MessagesRequest } from '../../translate/messages/types.js';
import { fieldPath } from './parse.js';
import { deepestIssue, valueAt, type Issue } from './zod-issues.js';

/**
 * POST /v1/messages and /v1/messages/count_tokens bodies (spec "POST /v1/messages"), strict.
 * Blocks are checked per role: user → text, image (base64 or url), tool_result; assistant →
 * text, tool_use. A few Anthropic fields that SDKs and agents send are accepted and dropped
 * (cache_control everywhere, citations on text, metadata except user_id, service_tier,
 * thinking: spec "Not supported … silently dropped"); anything else unknown is refused by name.
 */

const cacheControl = z.unknown().optional();

const textBlock = z.object({ type: z.literal('text'), text: z.string(), cache_control: cacheControl, citations: z.unknown().optional() }).strict();

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
const imageBlock = z.object({ type: z.literal('image'), source: imageSource, cache_control: cacheControl }).strict();

const toolUseBlock = z
  .object({
    type: z.literal('tool_use'),
    id: z.string().min(1),
    name: z.string().min(1),
    input: z.record(z.string(), z.unknown()),
    cache_control: cacheControl,
  })
  .strict();

const toolResultBlock = z
  .object({
    type: z.literal('tool_result'),
    tool_use_id: z.string().min(1),
    content: z.union([z.string(), z.array(z.discriminatedUnion('type', [textBlock, imageBlock]))]).optional(),
    is_error: z.boolean().optional(),
    cache_control: cacheControl,
  })
  .strict();

const userBlock = z.discriminatedUnion('type', [textBlock, imageBlock, toolResultBlock]);
const assistantBlock = z.discriminatedUnion('type', [textBlock, toolUseBlock]);

const message = z.discriminatedUnion('role', [
  z.object({ role: z.literal('user'), content: z.union([z.string(), z.array(userBlock).min(1)]) }).strict(),
  z.object({ role: z.literal('assistant'), content: z.union([z.string(), z.array(assistantBlock)]) }).strict(),
]);

const tool = z
  .object({
    type: z.literal('custom').optional(),
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'tool names use letters, digits, _ or -, at most 64'),
    description: z.string().optional(),
    input_schema: z.record(z.string(), z.unknown()),
    cache_control: cacheControl,
  })
  .strict();

const toolChoice = z.discriminatedUnion('type', [
  z.object({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().optional() }).strict(),
  z.object({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().optional() }).strict(),
  z.object({ type: z.literal('none') }).strict(),
  z.object({ type: z.literal('tool'), name: z.string().min(1), disable_parallel_tool_use: z.boolean().optional() }).strict(),
]);

const system = z.union([z.string(), z.array(textBlock)]);

export const messagesSchema = z
  .object({
    model: z.string().min(1),
    messages: z.array(message).min(1),
    max_tokens: z.number().int().min(1),
    system: system.optional(),
    tools: z.array(tool).optional(),
    tool_choice: toolChoice.optional(),
    stop_sequences: z.array(z.string()).optional(),
    temperature: z.number().min(0).max(1).optional(),
    top_p: z.number().min(0).max(1).optional(),
    top_k: z.number().int().min(0).optional(),
    stream: z.boolean().optional(),
    metadata: z.object({ user_id: z.string().nullable().optional() }).strict().optional(),
    service_tier: z.string().optional(),
    thinking: z.unknown().optional(),
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
    model: z.string().optional(),
    messages: z.array(message).min(1),
    system: system.optional(),
    tools: z.array(tool).optional(),
    tool_choice: toolChoice.optional(),
    thinking: z.unknown().optional(),
  })
  .strict();

export type MessagesBody = z.output<typeof messagesSchema>;
export type CountTokensBody = z.output<typeof countTokensSchema>;


const ALLOWED_BLOCKS = { user: 'text, image, tool_result', assistant: 'text, tool_use' } as const;

/** Strict validation with Messages-specific wording: a bad block is named as messages[i].content[j]. */
export function parseMessagesBody<Schema extends typeof messagesSchema | typeof countTokensSchema>(schema: Schema, body: unknown): z.output<Schema> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new GatewayError('VALIDATION_4005', 'The request body must be a JSON object.', { field: 'body' });
  }
  const result = schema.safeParse(body);
  if (result.success) return result.data as z.output<Schema>;
  const issue = deepestIssue(result.error.issues[0] as unknown as Issue);
  if (issue.code === 'unrecognized_keys') {
    const field = fieldPath([...issue.path, issue.keys?.[0] ?? '']);
    throw new GatewayError('VALIDATION_4005', `Unknown parameter "${field}".`, { field });
  }
  const field = fieldPath(issue.path);
  const blockPath = issue.path.length >= 4 && issue.path[0] === 'messages' && issue.path[2] === 'content' && typeof issue.path[3] === 'number' ? issue.path.slice(0, 4) : undefined;
  if (blockPath !== undefined) {
    const block = fieldPath(blockPath);
    const role = valueAt(body, [blockPath[0]!, blockPath[1]!, 'role']);
    const type = valueAt(body, [...blockPath, 'type']);
    const roleName = role === 'assistant' ? 'assistant' : 'user';
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

/** The validated body as the translation input (accepted-and-dropped fields stay out). */
export function toMessagesRequest(body: MessagesBody): MessagesRequest {
  return body as MessagesRequest;
}
