import { z } from 'zod';
import { SURFACE_REASONING_EFFORTS } from '../../translate/chat/reasoning-effort.js';
import { moderationSchema, promptCacheOptionsSchema } from './openai-platform-fields.js';

/**
 * POST /v1/chat/completions body (spec table): every field openai 6.49's ChatCompletionCreateParams
 * declares, strictly checked. Unknown names are handled by the forward-compatible parse
 * (validation/forward-compatible.ts, DESIGN §5).
 */

const textPart = z.object({ type: z.literal('text'), text: z.string() }).strict();
const imagePart = z
  .object({
    type: z.literal('image_url'),
    image_url: z.object({ url: z.string().min(1), detail: z.enum(['auto', 'low', 'high']).optional() }).strict(),
  })
  .strict();
const userContent = z.union([z.string(), z.array(z.discriminatedUnion('type', [textPart, imagePart])).min(1)]);
const textContent = z.union([z.string(), z.array(textPart)]);

const toolCall = z
  .object({
    id: z.string().min(1),
    type: z.literal('function'),
    function: z.object({ name: z.string().min(1), arguments: z.string() }).strict(),
  })
  .strict();

const message = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: textContent, name: z.string().optional() }).strict(),
  z.object({ role: z.literal('developer'), content: textContent, name: z.string().optional() }).strict(),
  z.object({ role: z.literal('user'), content: userContent, name: z.string().optional() }).strict(),
  z
    .object({
      role: z.literal('assistant'),
      content: textContent.nullable().optional(),
      name: z.string().optional(),
      tool_calls: z.array(toolCall).optional(),
      reasoning_content: z.string().optional(),
      refusal: z.string().nullable().optional(),
    })
    .strict(),
  z.object({ role: z.literal('tool'), content: textContent, tool_call_id: z.string().min(1) }).strict(),
]);

const functionTool = z
  .object({
    type: z.literal('function'),
    function: z
      .object({
        name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'function names use letters, digits, _ or -, at most 64'),
        description: z.string().optional(),
        parameters: z.record(z.string(), z.unknown()).optional(),
        strict: z.boolean().nullable().optional(),
      })
      .strict(),
  })
  .strict();

const toolChoice = z.union([
  z.enum(['auto', 'none', 'required']),
  z.object({ type: z.literal('function'), function: z.object({ name: z.string().min(1) }).strict() }).strict(),
  // Only these functions may be called: the endpoint offers just those (the hub has no such list).
  z
    .object({
      type: z.literal('allowed_tools'),
      allowed_tools: z.object({ mode: z.enum(['auto', 'required']), tools: z.array(z.object({ type: z.literal('function'), function: z.object({ name: z.string().min(1) }).strict() }).strict()).min(1) }).strict(),
    })
    .strict(),
]);

const responseFormat = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }).strict(),
  z.object({ type: z.literal('json_object') }).strict(),
  z
    .object({
      type: z.literal('json_schema'),
      json_schema: z
        .object({
          name: z.string().min(1),
          description: z.string().optional(),
          schema: z.record(z.string(), z.unknown()).optional(),
          strict: z.boolean().nullable().optional(),
        })
        .strict(),
    })
    .strict(),
]);

const stop = z.union([z.string(), z.array(z.string()).max(4)]).nullable();

export const chatCompletionSchema = z
  .object({
    // Optional only when a blueprint names the model (checked after the blueprint is loaded).
    model: z.string().min(1).optional(),
    messages: z.array(message).min(1),
    max_tokens: z.number().int().positive().nullable().optional(),
    max_completion_tokens: z.number().int().positive().nullable().optional(),
    temperature: z.number().min(0).max(2).nullable().optional(),
    top_p: z.number().min(0).max(1).nullable().optional(),
    top_k: z.number().int().positive().optional(),
    min_p: z.number().min(0).max(1).optional(),
    frequency_penalty: z.number().min(-2).max(2).nullable().optional(),
    presence_penalty: z.number().min(-2).max(2).nullable().optional(),
    stop: stop.optional(),
    seed: z.number().int().nullable().optional(),
    user: z.string().optional(),
    n: z.number().int().min(1).max(10).nullable().optional(),
    stream: z.boolean().nullable().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional(), include_obfuscation: z.boolean().optional() }).strict().nullable().optional(),
    tools: z.array(functionTool).optional(),
    tool_choice: toolChoice.optional(),
    parallel_tool_calls: z.boolean().optional(),
    response_format: responseFormat.optional(),
    logprobs: z.boolean().nullable().optional(),
    top_logprobs: z.number().int().min(0).max(20).nullable().optional(),
    reasoning_effort: z.enum(SURFACE_REASONING_EFFORTS).nullable().optional(),
    preset: z.enum(['reasoning', 'non_reasoning']).optional(),
    request_id: z.string().max(256).optional(),
    // Blueprints and skills: documents validated by src/blueprints (schemas/*.schema.json).
    blueprint_id: z.string().uuid().optional(),
    blueprint_config: z.record(z.string(), z.unknown()).optional(),
    variables: z.record(z.string(), z.unknown()).optional(),
    skill_ids: z.array(z.string()).optional(),
    skill_configs: z.array(z.record(z.string(), z.unknown())).optional(),
    // OpenAI parameters igw accepts so existing SDK code keeps working, but does not act on.
    store: z.boolean().nullable().optional(),
    metadata: z.record(z.string(), z.string()).nullable().optional(),
    service_tier: z.string().nullable().optional(),
    logit_bias: z.record(z.string(), z.number()).nullable().optional(),
    prompt_cache_key: z.string().nullable().optional(),
    safety_identifier: z.string().nullable().optional(),
    prompt_cache_retention: z.enum(['in_memory', '24h']).nullable().optional(),
    prompt_cache_options: promptCacheOptionsSchema,
    verbosity: z.enum(['low', 'medium', 'high']).nullable().optional(),
    // A speed-up for edits (predicted output): the answer is the same without it.
    prediction: z.object({ type: z.literal('content'), content: z.union([z.string(), z.array(textPart)]) }).strict().nullable().optional(),
    moderation: moderationSchema,
    // Declared by the SDK; igw cannot honour them and dropping them would change the answer, so
    // the endpoint refuses them by name (chat-completions.ts refuseUnservable).
    audio: z.record(z.string(), z.unknown()).nullable().optional(),
    modalities: z.array(z.enum(['text', 'audio'])).nullable().optional(),
    functions: z.array(z.record(z.string(), z.unknown())).optional(),
    function_call: z.union([z.enum(['none', 'auto']), z.object({ name: z.string() }).strict()]).optional(),
    web_search_options: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .superRefine((body, context) => {
    // Spec: "set this or top_p, not both". A neutral value (temperature 1 / top_p 1) is not a choice.
    if (body.temperature != null && body.top_p != null && body.temperature !== 1 && body.top_p !== 1) {
      context.addIssue({ code: 'custom', path: ['top_p'], message: 'set temperature or top_p, not both' });
    }
    if (body.top_logprobs != null && body.top_logprobs > 0 && body.logprobs !== true) {
      context.addIssue({ code: 'custom', path: ['top_logprobs'], message: 'top_logprobs needs logprobs: true' });
    }
    if (body.stream_options != null && body.stream !== true) {
      context.addIssue({ code: 'custom', path: ['stream_options'], message: 'stream_options is only allowed with stream: true' });
    }
    // With skills, tool_choice is checked against the merged tools (src/blueprints/apply.ts).
    const skills = (body.skill_ids?.length ?? 0) + (body.skill_configs?.length ?? 0) > 0;
    if (typeof body.tool_choice === 'object' && !skills) {
      const named = body.tool_choice.type === 'function' ? [{ name: body.tool_choice.function.name, path: ['tool_choice', 'function', 'name'] }] : body.tool_choice.allowed_tools.tools.map((entry, index) => ({ name: entry.function.name, path: ['tool_choice', 'allowed_tools', 'tools', index, 'function', 'name'] }));
      for (const { name, path } of named) {
        if (!body.tools?.some((tool) => tool.function.name === name)) context.addIssue({ code: 'custom', path, message: `no tool named "${name}" in tools` });
      }
    }
    if (body.tool_choice === 'required' && !skills && (body.tools === undefined || body.tools.length === 0)) {
      context.addIssue({ code: 'custom', path: ['tool_choice'], message: 'tool_choice "required" needs at least one tool' });
    }
  });

export type ChatCompletionBody = z.output<typeof chatCompletionSchema>;
