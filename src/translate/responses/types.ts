import type { SurfaceReasoningEffort } from '../chat/reasoning-effort.js';

/**
 * Responses-style surface types (spec "POST /v1/responses", "Responses-style response object",
 * "Streaming"): the subset of the OpenAI Responses wire igw accepts and emits, snake_case as on
 * the wire. Validation lives in endpoints/validation/responses-schema.ts; these are its output.
 */

export interface InputTextPart { type: 'input_text'; text: string }
export interface InputImagePart { type: 'input_image'; image_url: string; detail?: 'auto' | 'low' | 'high' }
export interface OutputTextPart { type: 'output_text'; text: string; annotations?: unknown[] }
export interface RefusalPart { type: 'refusal'; refusal: string }

export type InputMessageItem =
  | { type: 'message'; role: 'user' | 'system' | 'developer'; content: string | Array<InputTextPart | InputImagePart> }
  | { type: 'message'; role: 'assistant'; content: string | Array<OutputTextPart | InputTextPart | RefusalPart> };

export interface FunctionCallItem { type: 'function_call'; call_id: string; name: string; arguments: string; namespace?: string; id?: string; status?: string }
export interface FunctionCallOutputItem { type: 'function_call_output'; call_id: string; output: string | Array<InputTextPart | InputImagePart> }
export interface CustomToolCallItem { type: 'custom_tool_call'; call_id: string; name: string; input: string; namespace?: string; id?: string }
export interface CustomToolCallOutputItem { type: 'custom_tool_call_output'; call_id: string; output: string | Array<InputTextPart | InputImagePart> }

export interface ShellAction { commands: string[]; timeout_ms?: number | null; max_output_length?: number | null }
export interface ShellCallItem { type: 'shell_call'; call_id: string; action: ShellAction; id?: string | null; status?: string | null }
export interface ShellOutputChunk { stdout: string; stderr: string; outcome: { type: 'exit'; exit_code: number } | { type: 'timeout' } }
export interface ShellCallOutputItem { type: 'shell_call_output'; call_id: string; output: ShellOutputChunk[]; max_output_length?: number | null }

export type ApplyPatchOperation =
  | { type: 'create_file'; path: string; diff: string }
  | { type: 'update_file'; path: string; diff: string }
  | { type: 'delete_file'; path: string };
export interface ApplyPatchCallItem { type: 'apply_patch_call'; call_id: string; operation: ApplyPatchOperation; id?: string | null; status?: string }
export interface ApplyPatchCallOutputItem { type: 'apply_patch_call_output'; call_id: string; status: 'completed' | 'failed'; output?: string | null }

export interface FileSearchResult {
  file_id: string;
  filename: string;
  score: number;
  text: string;
  attributes: Record<string, string | number | boolean> | null;
}
export interface FileSearchCallInputItem { type: 'file_search_call'; id: string; queries: string[]; status?: string; results?: FileSearchResult[] | null }

/** MCP items of an earlier answer (OpenAI's shapes): a call with its output or error goes back to the model. */
export interface McpListToolsInputItem { type: 'mcp_list_tools'; id: string; server_label: string; tools: McpListedTool[]; error?: string | null }
export interface McpCallInputItem { type: 'mcp_call'; id: string; server_label: string; name: string; arguments: string; output?: string | null; error?: string | null; status?: string | null; approval_request_id?: string | null }
export interface McpApprovalRequestInputItem { type: 'mcp_approval_request'; id: string; server_label: string; name: string; arguments: string }
export interface McpApprovalResponseInputItem { type: 'mcp_approval_response'; approval_request_id: string; approve: boolean; id?: string | null; reason?: string | null }

/** Items a client sends back from an earlier answer that carry nothing the hub can use (dropped). */
export interface DroppedInputItem { type: 'reasoning' | 'web_search_call' | 'tool_search_call' | 'tool_search_output' | 'additional_tools' }

export type ResponsesInputItem =
  | InputMessageItem
  | FunctionCallItem
  | FunctionCallOutputItem
  | CustomToolCallItem
  | CustomToolCallOutputItem
  | ShellCallItem
  | ShellCallOutputItem
  | ApplyPatchCallItem
  | ApplyPatchCallOutputItem
  | FileSearchCallInputItem
  | McpListToolsInputItem
  | McpCallInputItem
  | McpApprovalRequestInputItem
  | McpApprovalResponseInputItem
  | DroppedInputItem;

export interface FunctionToolDefinition { type: 'function'; name: string; description?: string | null; parameters?: Record<string, unknown> | null; strict?: boolean | null }
export interface FileSearchToolDefinition {
  type: 'file_search';
  vector_store_ids: string[];
  max_num_results?: number;
  filters?: Record<string, unknown> | null;
  ranking_options?: { ranker?: string; score_threshold?: number; hybrid_search?: unknown } | null;
}
export interface ShellToolDefinition { type: 'shell' | 'function_shell'; environment?: unknown }
export interface ApplyPatchToolDefinition { type: 'apply_patch' }
export interface WebSearchToolDefinition { type: 'web_search' | 'web_search_preview'; [field: string]: unknown }
/** A tool whose input is free text (optionally following a grammar) rather than JSON arguments. */
export interface CustomToolDefinition { type: 'custom'; name: string; description?: string; format?: { type: 'text' } | { type: 'grammar'; syntax: string; definition: string } }
/** Functions grouped under a shared name (OpenAI's NamespaceTool); their calls name the namespace. */
export interface NamespaceToolDefinition { type: 'namespace'; name: string; description: string; tools: Array<FunctionToolDefinition | CustomToolDefinition> }

/** Which tools of an MCP server: names, or OpenAI's filter (`read_only`: tools annotated readOnlyHint). */
export type McpToolFilter = string[] | { tool_names?: string[]; read_only?: boolean };
export type McpApproval = 'always' | 'never' | { always?: { tool_names?: string[]; read_only?: boolean }; never?: { tool_names?: string[]; read_only?: boolean } };
/** A remote MCP server igw connects to for the model (OpenAI's Tool.Mcp); a configured `mcp_servers` name when server_url is absent. */
export interface McpToolDefinition {
  type: 'mcp';
  server_label: string;
  server_url?: string;
  headers?: Record<string, string> | null;
  authorization?: string;
  allowed_tools?: McpToolFilter | null;
  require_approval?: McpApproval | null;
  server_description?: string;
  connector_id?: string;
  allowed_callers?: Array<'direct' | 'programmatic'> | null;
  defer_loading?: boolean;
  tunnel_id?: string;
}

export type ResponsesTool = FunctionToolDefinition | CustomToolDefinition | FileSearchToolDefinition | ShellToolDefinition | ApplyPatchToolDefinition | WebSearchToolDefinition | NamespaceToolDefinition | McpToolDefinition;

export type ResponsesToolChoice =
  | 'auto'
  | 'none'
  | 'required'
  | { type: 'function' | 'custom'; name: string }
  | { type: 'file_search' | 'shell' | 'apply_patch' | 'web_search' | 'web_search_preview' }
  /** A tool of one MCP server (any of its tools when `name` is absent). */
  | { type: 'mcp'; server_label: string; name?: string | null }
  /** Only these tools may be called (`mode` as auto / required); the others stay in the request's prompt cache at OpenAI. */
  | { type: 'allowed_tools'; mode: 'auto' | 'required'; tools: Array<{ type: string; name?: string }> };

export type ResponsesTextFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; description?: string; strict?: boolean | null };

/** The validated request (gateway-only and accepted-but-ignored fields already dropped). */
export interface ResponsesRequest {
  model: string;
  input: string | ResponsesInputItem[];
  instructions?: string | null;
  max_output_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  frequency_penalty?: number | null;
  presence_penalty?: number | null;
  stop?: string | string[] | null;
  seed?: number | null;
  user?: string;
  stream?: boolean | null;
  reasoning?: { effort?: SurfaceReasoningEffort | null } | null;
  tools?: ResponsesTool[];
  tool_choice?: ResponsesToolChoice;
  parallel_tool_calls?: boolean | null;
  text?: { format?: ResponsesTextFormat } | null;
  include?: string[] | null;
  max_tool_calls?: number | null;
  top_logprobs?: number | null;
  metadata?: Record<string, string> | null;
}

// ---- response object ----

export interface OutputMessageItem {
  type: 'message';
  id: string;
  role: 'assistant';
  status: 'completed' | 'incomplete' | 'in_progress';
  content: Array<{ type: 'output_text'; text: string; annotations: unknown[] }>;
}
export interface OutputFunctionCallItem { type: 'function_call'; id: string; call_id: string; name: string; arguments: string; status: 'completed' | 'in_progress'; namespace?: string }
export interface OutputCustomToolCallItem { type: 'custom_tool_call'; id: string; call_id: string; name: string; input: string; status: 'completed' | 'in_progress'; namespace?: string }
export interface OutputShellCallItem { type: 'shell_call'; id: string; call_id: string; action: { commands: string[]; timeout_ms: number | null; max_output_length: number | null }; environment: null; status: 'completed' | 'in_progress' }
export interface OutputApplyPatchCallItem { type: 'apply_patch_call'; id: string; call_id: string; operation: ApplyPatchOperation; status: 'completed' | 'in_progress' }
export interface OutputFileSearchCallItem { type: 'file_search_call'; id: string; queries: string[]; status: 'in_progress' | 'searching' | 'completed' | 'failed'; results: FileSearchResult[] | null }

export interface McpListedTool { name: string; input_schema: unknown; description?: string | null; annotations?: unknown | null }
export interface OutputMcpListToolsItem { type: 'mcp_list_tools'; id: string; server_label: string; tools: McpListedTool[]; error?: string | null }
export interface OutputMcpCallItem {
  type: 'mcp_call';
  id: string;
  server_label: string;
  name: string;
  arguments: string;
  output: string | null;
  error: string | null;
  status: 'in_progress' | 'calling' | 'completed' | 'failed';
  approval_request_id?: string | null;
}
export interface OutputMcpApprovalRequestItem { type: 'mcp_approval_request'; id: string; server_label: string; name: string; arguments: string }

export interface OutputReasoningItem { type: 'reasoning'; id: string; status: 'completed' | 'in_progress'; summary: []; content: Array<{ type: 'reasoning_text'; text: string }> }

export type ResponsesOutputItem =
  | OutputReasoningItem
  | OutputMessageItem
  | OutputFunctionCallItem
  | OutputCustomToolCallItem
  | OutputShellCallItem
  | OutputApplyPatchCallItem
  | OutputFileSearchCallItem
  | OutputMcpListToolsItem
  | OutputMcpCallItem
  | OutputMcpApprovalRequestItem;

export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export type ResponsesStatus = 'in_progress' | 'completed' | 'failed';

export interface ResponsesError { code: string; message: string }

/** The response object without the billing fields the endpoint adds (spec "Responses-style response object"). */
export interface ResponseObject {
  id: string;
  object: 'response';
  created_at: number;
  model: string;
  status: ResponsesStatus;
  error: ResponsesError | null;
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
  instructions: string | null;
  max_output_tokens: number | null;
  output: ResponsesOutputItem[];
  parallel_tool_calls: boolean;
  previous_response_id: null;
  reasoning: { effort: SurfaceReasoningEffort | null; summary: null };
  store: false;
  temperature: number | null;
  text: { format: ResponsesTextFormat };
  tool_choice: ResponsesToolChoice;
  tools: ResponsesTool[];
  top_p: number | null;
  truncation: 'disabled';
  usage: ResponsesUsage | null;
  user: string | null;
  metadata: Record<string, string>;
  [extra: string]: unknown;
}

// ---- stream events (spec "Streaming"; shapes as in the recorded OpenAI captures) ----

type Sequenced<T> = T & { sequence_number: number };

export type ResponseStreamEvent = Sequenced<
  | { type: 'response.created' | 'response.in_progress' | 'response.completed' | 'response.failed'; response: ResponseObject }
  | { type: 'response.output_item.added' | 'response.output_item.done'; output_index: number; item: ResponsesOutputItem }
  | { type: 'response.content_part.added' | 'response.content_part.done'; item_id: string; output_index: number; content_index: number; part: OutputMessageItem['content'][number] | OutputReasoningItem['content'][number] }
  | { type: 'response.reasoning_text.delta'; item_id: string; output_index: number; content_index: number; delta: string }
  | { type: 'response.reasoning_text.done'; item_id: string; output_index: number; content_index: number; text: string }
  | { type: 'response.output_text.delta'; item_id: string; output_index: number; content_index: number; delta: string; logprobs: [] }
  | { type: 'response.output_text.done'; item_id: string; output_index: number; content_index: number; text: string; logprobs: [] }
  | { type: 'response.function_call_arguments.delta'; item_id: string; output_index: number; delta: string }
  | { type: 'response.function_call_arguments.done'; item_id: string; output_index: number; name: string; arguments: string }
  | { type: 'response.file_search_call.in_progress' | 'response.file_search_call.searching' | 'response.file_search_call.completed'; item_id: string; output_index: number }
  | { type: 'response.mcp_list_tools.in_progress' | 'response.mcp_list_tools.completed' | 'response.mcp_list_tools.failed'; item_id: string; output_index: number }
  | { type: 'response.mcp_call.in_progress' | 'response.mcp_call.completed' | 'response.mcp_call.failed'; item_id: string; output_index: number }
  | { type: 'response.mcp_call_arguments.delta'; item_id: string; output_index: number; delta: string }
  | { type: 'response.mcp_call_arguments.done'; item_id: string; output_index: number; arguments: string }
  | { type: 'error'; code: string; message: string; param: string | null; error: { type: string; code: string; message: string; param: string | null } }
>;
