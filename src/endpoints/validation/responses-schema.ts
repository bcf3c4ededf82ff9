import { z } from 'zod';
import { GatewayError } from '../../errors/gateway-error.js';
import type { ResponsesRequest } from '../../translate/responses/types.js';
import { SURFACE_REASONING_EFFORTS } from '../../translate/chat/reasoning-effort.js';
import { moderationSchema, promptCacheOptionsSchema } from './openai-platform-fields.js';
import { flatFunctionName } from '../../translate/responses/namespaced-names.js';
import { parseForwardCompatible } from './forward-compatible.js';
import { fieldPath } from './parse.js';
import { deepestIssue, valueAt, type Issue } from './zod-issues.js';

/**
 * POST /v1/responses body (spec "POST /v1/responses"), strict. Stateful features are refused
 * before anything else (previous_response_id → VALIDATION_4001; conversation, background,
 * item_reference → VALIDATION_4005), so a client learns at once that igw keeps no state.
 * Parameters the official SDK sends that change nothing here (metadata, truncation,
 * service_tier, text.verbosity, reasoning.summary, …) are accepted and not acted on.
 */

/** Tool types the spec supports; any other type is refused by name. */
export const SUPPORTED_TOOL_TYPES = ['function', 'custom', 'namespace', 'file_search', 'mcp', 'web_search', 'web_search_preview', 'shell', 'function_shell', 'apply_patch', 'tool_search'] as const;

/** Tool types the spec names as refused (computer use and code run on OpenAI's machines). */
const REFUSED_TOOL_TYPES: Readonly<Record<string, string>> = {
  computer_use: 'computer use needs a hosted computer environment',
  computer_use_preview: 'computer use needs a hosted computer environment',
  code_interpreter: 'code runs in OpenAI-hosted containers',
};

/** `include` values OpenAI defines; only file_search_call.results changes igw's answer. */
const INCLUDABLE = [
  'file_search_call.results',
  'web_search_call.results',
  'web_search_call.action.sources',
  'message.input_image.image_url',
  'computer_call_output.output.image_url',
  'code_interpreter_call.outputs',
  'reasoning.encrypted_content',
  'message.output_text.logprobs',
] as const;

const detail = z.enum(['auto', 'low', 'high']);
const inputText = z.object({ type: z.literal('input_text'), text: z.string() }).strict();
const inputImage = z
  .object({
    type: z.literal('input_image'),
    image_url: z.string().min(1, 'send the image as an http(s) URL or a base64 data URI'),
    detail: detail.optional(),
  })
  .strict();
const outputText = z.object({ type: z.literal('output_text'), text: z.string(), annotations: z.array(z.unknown()).optional(), logprobs: z.array(z.unknown()).optional() }).strict();
const refusal = z.object({ type: z.literal('refusal'), refusal: z.string() }).strict();

const itemMeta = { id: z.string().nullable().optional(), status: z.string().nullable().optional() };

const userMessage = z
  .object({
    type: z.literal('message'),
    role: z.enum(['user', 'system', 'developer']),
    content: z.union([z.string(), z.array(z.discriminatedUnion('type', [inputText, inputImage]))]),
    ...itemMeta,
  })
  .strict();
const assistantMessage = z
  .object({
    type: z.literal('message'),
    role: z.literal('assistant'),
    content: z.union([z.string(), z.array(z.discriminatedUnion('type', [outputText, inputText, refusal]))]),
    ...itemMeta,
  })
  .strict();

const functionCall = z
  .object({
    type: z.literal('function_call'),
    call_id: z.string().min(1),
    name: z.string().min(1),
    arguments: z.string(),
    // The namespace tool the function belongs to (tools.ts maps it to the flat name it was offered as).
    namespace: z.string().nullable().optional(),
    // Who made the call (the model directly, or a program): the call is the same to the hub.
    caller: z.unknown().optional(),
    ...itemMeta,
  })
  .strict();
/** What a tool returned: text, or text and image parts (function and custom tools alike). */
const toolOutputFields = {
  call_id: z.string().min(1),
  output: z.union([z.string(), z.array(z.discriminatedUnion('type', [inputText, inputImage]))]),
  caller: z.unknown().optional(),
  ...itemMeta,
};
const functionCallOutput = z.object({ type: z.literal('function_call_output'), ...toolOutputFields }).strict();

const customToolCall = z
  .object({ type: z.literal('custom_tool_call'), call_id: z.string().min(1), name: z.string().min(1), input: z.string(), namespace: z.string().nullable().optional(), caller: z.unknown().optional(), ...itemMeta })
  .strict();
const customToolCallOutput = z.object({ type: z.literal('custom_tool_call_output'), ...toolOutputFields }).strict();

const shellAction = z
  .object({ commands: z.array(z.string()), timeout_ms: z.number().int().nonnegative().nullable().optional(), max_output_length: z.number().int().nonnegative().nullable().optional() })
  .strict();
const shellCall = z
  .object({ type: z.literal('shell_call'), call_id: z.string().min(1), action: shellAction, environment: z.unknown().optional(), created_by: z.string().optional(), ...itemMeta })
  .strict();
const shellOutcome = z.discriminatedUnion('type', [
  z.object({ type: z.literal('exit'), exit_code: z.number().int() }).strict(),
  z.object({ type: z.literal('timeout') }).strict(),
]);
const shellCallOutput = z
  .object({
    type: z.literal('shell_call_output'),
    call_id: z.string().min(1),
    output: z.array(z.object({ stdout: z.string(), stderr: z.string(), outcome: shellOutcome, created_by: z.string().optional() }).strict()),
    max_output_length: z.number().int().nonnegative().nullable().optional(),
    created_by: z.string().optional(),
    ...itemMeta,
  })
  .strict();

const patchOperation = z.discriminatedUnion('type', [
  z.object({ type: z.literal('create_file'), path: z.string().min(1), diff: z.string() }).strict(),
  z.object({ type: z.literal('update_file'), path: z.string().min(1), diff: z.string() }).strict(),
  z.object({ type: z.literal('delete_file'), path: z.string().min(1) }).strict(),
]);
const applyPatchCall = z
  .object({ type: z.literal('apply_patch_call'), call_id: z.string().min(1), operation: patchOperation, created_by: z.string().optional(), ...itemMeta })
  .strict();
const applyPatchCallOutput = z
  .object({ type: z.literal('apply_patch_call_output'), call_id: z.string().min(1), status: z.enum(['completed', 'failed']), output: z.string().nullable().optional(), created_by: z.string().optional(), id: z.string().nullable().optional() })
  .strict();

const fileSearchResult = z
  .object({
    file_id: z.string(),
    filename: z.string(),
    score: z.number(),
    text: z.string(),
    attributes: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).nullable().optional(),
  })
  .strict();
const fileSearchCall = z
  .object({ type: z.literal('file_search_call'), id: z.string().min(1), queries: z.array(z.string()), status: z.string().optional(), results: z.array(fileSearchResult).nullable().optional() })
  .strict();

// Items of an earlier answer that carry nothing the hub can use: accepted so a client can send
// its whole transcript back, and dropped in translation.
const reasoningItem = z.object({ type: z.literal('reasoning') }).passthrough();
const webSearchCall = z.object({ type: z.literal('web_search_call') }).passthrough();
// Tool search (discovering deferred tools): igw offers every tool up front, so these carry nothing.
const toolSearchCall = z.object({ type: z.literal('tool_search_call') }).passthrough();
const toolSearchOutput = z.object({ type: z.literal('tool_search_output') }).passthrough();
const additionalTools = z.object({ type: z.literal('additional_tools') }).passthrough();

// MCP items of an earlier answer (OpenAI's shapes, endpoints/responses-mcp.ts).
const mcpListedTool = z.object({ name: z.string(), input_schema: z.unknown(), description: z.string().nullable().optional(), annotations: z.unknown().optional() }).strict();
const mcpListTools = z.object({ type: z.literal('mcp_list_tools'), id: z.string().min(1), server_label: z.string().min(1), tools: z.array(mcpListedTool), error: z.string().nullable().optional() }).strict();
const mcpCall = z
  .object({
    type: z.literal('mcp_call'),
    id: z.string().min(1),
    server_label: z.string().min(1),
    name: z.string().min(1),
    arguments: z.string(),
    output: z.string().nullable().optional(),
    error: z.string().nullable().optional(),
    status: z.string().nullable().optional(),
    approval_request_id: z.string().nullable().optional(),
  })
  .strict();
const mcpApprovalRequest = z.object({ type: z.literal('mcp_approval_request'), id: z.string().min(1), server_label: z.string().min(1), name: z.string().min(1), arguments: z.string() }).strict();
const mcpApprovalResponse = z
  .object({ type: z.literal('mcp_approval_response'), approval_request_id: z.string().min(1), approve: z.boolean(), id: z.string().nullable().optional(), reason: z.string().nullable().optional() })
  .strict();

const inputItem = z.discriminatedUnion('type', [
  // A message's shape depends on its role (assistant text is output_text).
  z.discriminatedUnion('role', [userMessage, assistantMessage]),
  functionCall,
  functionCallOutput,
  shellCall,
  shellCallOutput,
  applyPatchCall,
  applyPatchCallOutput,
  fileSearchCall,
  mcpListTools,
  mcpCall,
  mcpApprovalRequest,
  mcpApprovalResponse,
  customToolCall,
  customToolCallOutput,
  reasoningItem,
  webSearchCall,
  toolSearchCall,
  toolSearchOutput,
  additionalTools,
]);

const functionName = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'function names use letters, digits, _ or -, at most 64');
const functionFields = {
  name: functionName,
  description: z.string().nullable().optional(),
  parameters: z.record(z.string(), z.unknown()).nullable().optional(),
  strict: z.boolean().nullable().optional(),
  // OpenAI's tool search and programmatic calling: the function is offered to the model as is,
  // which is what these hints amount to for a model without those features.
  allowed_callers: z.array(z.enum(['direct', 'programmatic'])).nullable().optional(),
  defer_loading: z.boolean().optional(),
  output_schema: z.record(z.string(), z.unknown()).nullable().optional(),
};
const functionTool = z.object({ type: z.literal('function'), ...functionFields }).strict();
const customTool = z
  .object({
    type: z.literal('custom'),
    name: functionName,
    description: z.string().optional(),
    format: z
      .discriminatedUnion('type', [z.object({ type: z.literal('text') }).strict(), z.object({ type: z.literal('grammar'), syntax: z.string(), definition: z.string() }).strict()])
      .optional(),
    allowed_callers: functionFields.allowed_callers,
    defer_loading: functionFields.defer_loading,
  })
  .strict();
const namespaceTool = z
  .object({
    type: z.literal('namespace'),
    name: functionName,
    description: z.string(),
    tools: z.array(z.discriminatedUnion('type', [functionTool, customTool])).min(1),
  })
  .strict();

const comparisonFilter = z.object({ type: z.enum(['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin']), key: z.string(), value: z.unknown() }).strict();
type Filter = z.infer<typeof comparisonFilter> | { type: 'and' | 'or'; filters: Filter[] };
const filter: z.ZodType<Filter> = z.lazy(() => z.union([comparisonFilter, z.object({ type: z.enum(['and', 'or']), filters: z.array(filter) }).strict()]));

const fileSearchTool = z
  .object({
    type: z.literal('file_search'),
    vector_store_ids: z.array(z.string().min(1)).min(1),
    max_num_results: z.number().int().min(1).max(50).optional(),
    filters: filter.nullable().optional(),
    ranking_options: z
      .object({ ranker: z.string().optional(), score_threshold: z.number().min(0).max(1).optional(), hybrid_search: z.unknown().optional() })
      .strict()
      .nullable()
      .optional(),
  })
  .strict();

const mcpToolFilter = z.object({ tool_names: z.array(z.string()).optional(), read_only: z.boolean().optional() }).strict();
/** OpenAI's Tool.Mcp, every field its SDK declares (DESIGN §5); connector_id and tunnel_id are refused by the endpoint. */
const mcpTool = z
  .object({
    type: z.literal('mcp'),
    server_label: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'a server label uses letters, digits, _ or -, at most 64'),
    server_url: z.string().min(1).optional(),
    headers: z.record(z.string(), z.string()).nullable().optional(),
    authorization: z.string().optional(),
    allowed_tools: z.union([z.array(z.string()), mcpToolFilter]).nullable().optional(),
    require_approval: z.union([z.enum(['always', 'never']), z.object({ always: mcpToolFilter.optional(), never: mcpToolFilter.optional() }).strict()]).nullable().optional(),
    server_description: z.string().optional(),
    connector_id: z.string().optional(),
    tunnel_id: z.string().optional(),
    allowed_callers: functionFields.allowed_callers,
    defer_loading: functionFields.defer_loading,
  })
  .strict();

const tool = z.discriminatedUnion('type', [
  mcpTool,
  functionTool,
  customTool,
  namespaceTool,
  // Tool search finds deferred tools; igw offers every tool up front, so it is dropped (named).
  z.object({ type: z.literal('tool_search'), description: z.string().nullable().optional(), execution: z.enum(['server', 'client']).optional(), parameters: z.unknown().optional() }).strict(),
  fileSearchTool,
  // Hosted web search: passed to the provider as sent (its options are the provider's business).
  z.object({ type: z.literal('web_search') }).passthrough(),
  z.object({ type: z.literal('web_search_preview') }).passthrough(),
  z.object({ type: z.literal('shell'), environment: z.unknown().optional() }).strict(),
  z.object({ type: z.literal('function_shell'), environment: z.unknown().optional() }).strict(),
  z.object({ type: z.literal('apply_patch') }).strict(),
]);

const toolChoice = z.union([
  z.enum(['auto', 'none', 'required']),
  z.object({ type: z.enum(['function', 'custom']), name: z.string().min(1) }).strict(),
  z.object({ type: z.enum(['file_search', 'shell', 'apply_patch', 'web_search', 'web_search_preview']) }).strict(),
  z.object({ type: z.literal('mcp'), server_label: z.string().min(1), name: z.string().nullable().optional() }).strict(),
  z
    .object({
      type: z.literal('allowed_tools'),
      mode: z.enum(['auto', 'required']),
      tools: z.array(z.object({ type: z.string().min(1), name: z.string().optional(), namespace: z.string().optional() }).passthrough()).min(1),
    })
    .strict(),
]);

const textFormat = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }).strict(),
  z.object({ type: z.literal('json_object') }).strict(),
  z
    .object({
      type: z.literal('json_schema'),
      name: z.string().min(1),
      schema: z.record(z.string(), z.unknown()),
      description: z.string().optional(),
      strict: z.boolean().nullable().optional(),
    })
    .strict(),
]);

export const responsesSchema = z
  .object({
    model: z.string().min(1),
    input: z.union([z.string(), z.array(inputItem).min(1)]),
    instructions: z.string().nullable().optional(),
    max_output_tokens: z.number().int().positive().nullable().optional(),
    temperature: z.number().min(0).max(2).nullable().optional(),
    top_p: z.number().min(0).max(1).nullable().optional(),
    frequency_penalty: z.number().min(-2).max(2).nullable().optional(),
    presence_penalty: z.number().min(-2).max(2).nullable().optional(),
    stop: z.union([z.string(), z.array(z.string()).max(4)]).nullable().optional(),
    seed: z.number().int().nullable().optional(),
    user: z.string().optional(),
    store: z.boolean().nullable().optional(),
    stream: z.boolean().nullable().optional(),
    stream_options: z.object({ include_obfuscation: z.boolean().optional() }).strict().nullable().optional(),
    reasoning: z
      .object({
        effort: z.enum(SURFACE_REASONING_EFFORTS).nullable().optional(),
        summary: z.string().nullable().optional(),
        generate_summary: z.string().nullable().optional(),
        context: z.enum(['auto', 'current_turn', 'all_turns']).nullable().optional(),
        mode: z.string().optional(),
      })
      .strict()
      .nullable()
      .optional(),
    tools: z.array(tool).optional(),
    tool_choice: toolChoice.optional(),
    parallel_tool_calls: z.boolean().nullable().optional(),
    text: z.object({ format: textFormat.optional(), verbosity: z.enum(['low', 'medium', 'high']).nullable().optional() }).strict().nullable().optional(),
    include: z.array(z.enum(INCLUDABLE)).nullable().optional(),
    max_tool_calls: z.number().int().positive().nullable().optional(),
    top_logprobs: z.number().int().min(0).max(20).nullable().optional(),
    // Server-side compaction and cache hints of OpenAI's: nothing for igw to run.
    context_management: z.array(z.object({ type: z.string(), compact_threshold: z.number().nullable().optional() }).strict()).nullable().optional(),
    prompt_cache_options: promptCacheOptionsSchema,
    moderation: moderationSchema,
    // Accepted so existing SDK code keeps working; they change nothing here.
    metadata: z.record(z.string(), z.string()).nullable().optional(),
    truncation: z.enum(['auto', 'disabled']).nullable().optional(),
    service_tier: z.string().nullable().optional(),
    prompt_cache_key: z.string().nullable().optional(),
    // Codex sends its turn metadata here (not in the SDK types): forwarded natively, else unused.
    client_metadata: z.record(z.string(), z.unknown()).nullable().optional(),
    prompt_cache_retention: z.string().nullable().optional(),
    safety_identifier: z.string().optional(),
    background: z.literal(false).nullable().optional(),
    // igw extension: blueprints and skills, as on chat (src/blueprints; README "Blueprints and skills").
    blueprint_id: z.string().uuid().optional(),
    blueprint_config: z.record(z.string(), z.unknown()).optional(),
    variables: z.record(z.string(), z.unknown()).optional(),
    skill_ids: z.array(z.string()).optional(),
    skill_configs: z.array(z.record(z.string(), z.unknown())).optional(),
  })
  .strict()
  .superRefine((body, context) => {
    const tools = body.tools ?? [];
    // Built-in tools are offered to the model as functions of these names: a client function of
    // the same name would be ambiguous.
    const names = new Map<string, string>();
    const claim = (name: string, path: Array<string | number>) => {
      const earlier = names.get(name);
      if (earlier !== undefined) context.addIssue({ code: 'custom', path, message: `a tool named "${name}" is already defined at ${earlier}` });
      else names.set(name, fieldPath(path));
    };
    tools.forEach((entry, index) => {
      if (entry.type === 'web_search' || entry.type === 'web_search_preview' || entry.type === 'tool_search') return;
      if (entry.type === 'mcp') {
        // One server per label: the label prefixes its tools' function names.
        claim(`mcp:${entry.server_label}`, ['tools', index, 'server_label']);
        return;
      }
      if (entry.type === 'namespace') {
        // Namespace functions reach chat models under flat names (translate/responses/namespaced-names.ts).
        entry.tools.forEach((member, memberIndex) => claim(flatFunctionName(entry.name, member.name), ['tools', index, 'tools', memberIndex]));
        return;
      }
      claim(entry.type === 'function' || entry.type === 'custom' ? entry.name : entry.type === 'function_shell' ? 'shell' : entry.type, ['tools', index]);
    });
    const choice = body.tool_choice;
    // With skills, tool_choice is checked against the merged tools (src/blueprints/apply.ts).
    if ((body.skill_ids?.length ?? 0) + (body.skill_configs?.length ?? 0) > 0) return;
    if (choice === 'required' && tools.length === 0) context.addIssue({ code: 'custom', path: ['tool_choice'], message: 'tool_choice "required" needs at least one tool' });
    if (typeof choice === 'object' && choice.type === 'mcp') {
      if (!tools.some((entry) => entry.type === 'mcp' && entry.server_label === choice.server_label)) {
        context.addIssue({ code: 'custom', path: ['tool_choice'], message: `tool_choice names the MCP server "${choice.server_label}", which is not among the request's mcp tools` });
      }
    } else if (typeof choice === 'object' && choice.type !== 'allowed_tools') {
      const named = choice.type === 'function' || choice.type === 'custom';
      const wanted = named ? choice.name : choice.type;
      const present = tools.some((entry) => (named ? entry.type === choice.type && entry.name === wanted : entry.type === choice.type || (choice.type === 'shell' && entry.type === 'function_shell')));
      if (!present) context.addIssue({ code: 'custom', path: ['tool_choice'], message: `tool_choice names ${named ? `${choice.type} tool "${wanted}"` : `a ${wanted} tool`}, which is not among the request's tools` });
    }
  });

export type ResponsesBody = z.output<typeof responsesSchema>;

/** A validated /v1/responses body: the request as translation reads it, the whole body, the unknown names. */
export interface ParsedResponses {
  request: ResponsesRequest;
  body: ResponsesBody;
  /** Fields igw does not know (DESIGN §5), removed from `request` and `body`; empty with strict_params. */
  unknownFields: string[];
}

/**
 * Validates a /v1/responses body. Checks that must win over generic shape errors come first:
 * statefulness (previous_response_id, conversation, item_reference) and tool types the spec
 * refuses, each named. Unknown names pass (forward-compatible parse) unless `strict`.
 */
export function parseResponsesBody(raw: unknown, strict = false): ParsedResponses {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new GatewayError('VALIDATION_4005', 'The request body must be a JSON object.', { field: 'body' });
  }
  const record = raw as Record<string, unknown>;
  if (record['previous_response_id'] != null) {
    throw new GatewayError('VALIDATION_4001', 'previous_response_id is not supported: igw keeps no responses; send the whole conversation in "input".', { field: 'previous_response_id' });
  }
  if (record['conversation'] != null) {
    throw new GatewayError('VALIDATION_4005', 'conversation is not supported: igw keeps no conversations; send the whole conversation in "input".', { field: 'conversation' });
  }
  if (record['background'] === true) {
    throw new GatewayError('VALIDATION_4005', 'background responses are not supported: igw keeps no responses to poll; send the request without "background".', { field: 'background' });
  }
  if (record['prompt'] != null) throw new GatewayError('VALIDATION_4005', 'Stored prompts ("prompt") are not supported: send "instructions" and "input" instead.', { field: 'prompt' });
  checkToolTypes(record['tools']);
  normalizeInputItems(record['input']);
  const parsed = parseForwardCompatible(responsesSchema, raw, strict);
  if (!parsed.success) throw validationRefusal(parsed.issues[0]!, raw, strict);
  return { request: parsed.data as unknown as ResponsesRequest, body: parsed.data, unknownFields: parsed.unknownFields };
}

/** parse.ts rules (missing → VALIDATION_4002, anything else → VALIDATION_4005, field named) on the deepest issue. */
function validationRefusal(first: Issue, body: unknown, strict: boolean): GatewayError {
  const issue = deepestIssue(first);
  if (issue.code === 'unrecognized_keys') {
    const field = fieldPath([...issue.path, issue.keys?.[0] ?? '']);
    return new GatewayError('VALIDATION_4005', `Unknown parameter "${field}"${strict ? ' (server.strict_params is on)' : ''}.`, { field });
  }
  const field = fieldPath(issue.path);
  const value = valueAt(body, issue.path);
  if (issue.code !== 'custom' && issue.path.length > 0 && value === undefined) {
    return new GatewayError('VALIDATION_4002', `Missing required field "${field}".`, { field });
  }
  const got = typeof value === 'string' ? ` (got ${JSON.stringify(value)})` : '';
  return new GatewayError('VALIDATION_4005', `Invalid value for "${field || 'body'}": ${issue.message}${got}.`, { field: field || 'body' });
}

function checkToolTypes(tools: unknown): void {
  if (!Array.isArray(tools)) return;
  tools.forEach((entry, index) => {
    const type = (entry as { type?: unknown } | null)?.type;
    if (type === 'namespace') checkNamespaceMembers((entry as { tools?: unknown }).tools, index);
    if (typeof type !== 'string' || (SUPPORTED_TOOL_TYPES as readonly string[]).includes(type)) return;
    const field = `tools[${index}].type`;
    const why = REFUSED_TOOL_TYPES[type];
    const supported = SUPPORTED_TOOL_TYPES.join(', ');
    throw new GatewayError(
      'VALIDATION_4005',
      why === undefined
        ? `Tool type "${type}" is not supported by igw (supported: ${supported}).`
        : `Tool type "${type}" is not supported by igw: ${why}. Supported tool types: ${supported}.`,
      { field, tool_type: type },
    );
  });
}

/** A namespace groups function and custom tools (OpenAI's NamespaceTool); any other member type is refused by name. */
function checkNamespaceMembers(members: unknown, toolIndex: number): void {
  if (!Array.isArray(members)) return;
  members.forEach((member, index) => {
    const type = (member as { type?: unknown } | null)?.type;
    if (typeof type !== 'string' || type === 'function' || type === 'custom') return;
    throw new GatewayError('VALIDATION_4005', `Tool type "${type}" inside namespace tools[${toolIndex}] is not supported by igw: namespaces may hold function and custom tools.`, {
      field: `tools[${toolIndex}].tools[${index}].type`,
      tool_type: type,
    });
  });
}

/**
 * The easy message form `{role, content}` has no `type`: it gets `type: "message"` so one
 * discriminated union covers every item. item_reference is refused here, by index.
 */
function normalizeInputItems(input: unknown): void {
  if (!Array.isArray(input)) return;
  input.forEach((item, index) => {
    if (item === null || typeof item !== 'object') return;
    const record = item as Record<string, unknown>;
    if (record['type'] === undefined && 'role' in record) record['type'] = 'message';
    if (record['type'] === 'item_reference') {
      throw new GatewayError('VALIDATION_4005', `Input item input[${index}] is an item_reference: igw keeps no items to refer to; send the item itself.`, { field: `input[${index}].type` });
    }
  });
}
