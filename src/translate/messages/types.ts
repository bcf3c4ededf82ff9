/**
 * Message-style surface types (spec "POST /v1/messages", "Message-style response object",
 * "Streaming"): the subset of the Anthropic Messages wire igw accepts and emits, snake_case as
 * on the wire. Validation lives in endpoints/validation/messages-schema.ts; these are its output.
 */

export interface MessagesTextBlock {
  type: 'text';
  text: string;
  /** Accepted for compatibility, never forwarded (spec: cache_control silently dropped). */
  cache_control?: unknown;
}

export type MessagesImageSource =
  | { type: 'base64'; media_type: string; data: string }
  | { type: 'url'; url: string };

export interface MessagesImageBlock {
  type: 'image';
  source: MessagesImageSource;
  cache_control?: unknown;
  transformations?: unknown;
}

export interface MessagesToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
  cache_control?: unknown;
  caller?: unknown;
  toolset_name?: unknown;
}

export interface MessagesToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | Array<MessagesTextBlock | MessagesImageBlock | MessagesAnthropicOnlyBlock>;
  is_error?: boolean;
  cache_control?: unknown;
  toolset_name?: unknown;
}

/** An earlier turn's reasoning as the client got it back (only a native upstream can use it). */
export interface MessagesThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
  cache_control?: unknown;
}

export interface MessagesRedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
  cache_control?: unknown;
}

/**
 * Content blocks @anthropic-ai/sdk declares that only Anthropic itself reads or produces
 * (documents, search results, server tool calls and their results, MCP, compaction, …): a native
 * upstream gets them as sent; a translated call refuses them by name (translation-plan.ts),
 * since dropping a document or a tool result would change the answer.
 */
export const ANTHROPIC_ONLY_BLOCK_TYPES = [
  'document',
  'search_result',
  'server_tool_use',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'advisor_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
  'tool_search_tool_result',
  'mcp_tool_use',
  'mcp_tool_result',
  'mcp_tool_listing',
  'container_upload',
  'compaction',
  'fallback',
] as const;

/** Inside a tool_result: the declared blocks besides text and image. */
export const ANTHROPIC_ONLY_RESULT_BLOCK_TYPES = ['document', 'search_result', 'tool_reference', 'browser_state'] as const;

export interface MessagesAnthropicOnlyBlock {
  type: (typeof ANTHROPIC_ONLY_BLOCK_TYPES)[number] | (typeof ANTHROPIC_ONLY_RESULT_BLOCK_TYPES)[number];
  [field: string]: unknown;
}

export type MessagesRequestBlock =
  | MessagesTextBlock
  | MessagesImageBlock
  | MessagesToolUseBlock
  | MessagesToolResultBlock
  | MessagesThinkingBlock
  | MessagesRedactedThinkingBlock
  | MessagesAnthropicOnlyBlock;

export type MessagesRequestMessage =
  | { role: 'user' | 'assistant'; content: string | MessagesRequestBlock[] }
  /** SystemMessageParam: an instruction at this point of the conversation (beta mid-conversation-system). */
  | { role: 'system'; content?: string | Array<MessagesTextBlock | MessagesToolChangeBlock>; clear_at?: unknown; output_config?: unknown };

/** Beta: a tool added to or removed from the offer at this point of the conversation. */
export interface MessagesToolChangeBlock {
  type: 'tool_addition' | 'tool_removal';
  tool: Record<string, unknown>;
  cache_control?: unknown;
}

/** A client-defined tool (`type` absent or "custom"). */
export interface MessagesTool {
  type?: 'custom' | null;
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
  strict?: boolean;
  cache_control?: unknown;
  eager_input_streaming?: unknown;
  input_examples?: unknown;
  defer_loading?: unknown;
  allowed_callers?: unknown;
}

/** A tool Anthropic runs itself (web_search_…, bash_…, mcp_toolset …): only a native upstream can offer it. */
export interface MessagesServerTool {
  type: string;
  name: string;
  [field: string]: unknown;
}

/** JSONOutputFormat (output_config.format, beta output_format). */
export interface MessagesJsonOutputFormat {
  type: 'json_schema';
  schema: Record<string, unknown>;
}

export interface MessagesOutputConfig {
  effort?: 'low' | 'medium' | 'high' | 'xhigh' | 'max' | null;
  format?: MessagesJsonOutputFormat | null;
  task_budget?: unknown;
}

export type MessagesToolChoice =
  | { type: 'auto'; disable_parallel_tool_use?: boolean }
  | { type: 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'none' }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean };

export interface MessagesRequest {
  model: string;
  messages: MessagesRequestMessage[];
  max_tokens: number;
  system?: string | MessagesTextBlock[];
  tools?: Array<MessagesTool | MessagesServerTool>;
  tool_choice?: MessagesToolChoice;
  stop_sequences?: string[];
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stream?: boolean;
  metadata?: { user_id?: string | null };
  output_config?: MessagesOutputConfig;
  output_format?: MessagesJsonOutputFormat | null;
  /**
   * Every other MessageCreateParams field (thinking, context_management, service_tier, …) is
   * accepted and typed unknown: forwarded natively, dropped or refused when translating
   * (translation-plan.ts).
   */
  [field: string]: unknown;
}

export type MessagesStopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use';

export type MessagesResponseBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  /** A call igw ran on one of the request's `mcp_servers` (beta mcp-client-2025-04-04), and its result. */
  | { type: 'mcp_tool_use'; id: string; name: string; server_name: string; input: Record<string, unknown> }
  | { type: 'mcp_tool_result'; tool_use_id: string; is_error: boolean; content: Array<{ type: 'text'; text: string }> };

export interface MessagesUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
}

/** The message-style response object (without the non-stream billing fields the endpoint adds). */
export interface MessagesResponse {
  id: string;
  type: 'message';
  role: 'assistant';
  content: MessagesResponseBlock[];
  model: string;
  stop_reason: MessagesStopReason | null;
  stop_sequence: string | null;
  usage: MessagesUsage;
}

export interface MessagesErrorBody {
  type: string;
  message: string;
  [key: string]: unknown;
}

/** Stream events (spec "Streaming", message-style table). */
export type MessageStreamEvent =
  | { type: 'message_start'; message: MessagesResponse }
  | {
      type: 'content_block_start';
      index: number;
      content_block:
        | { type: 'text'; text: '' }
        | { type: 'tool_use'; id: string; name: string; input: Record<string, never> }
        /** igw ran these on `mcp_servers` (endpoints/messages-mcp-stream.ts): input streams as input_json_delta. */
        | { type: 'mcp_tool_use'; id: string; name: string; server_name: string; input: Record<string, never> }
        | Extract<MessagesResponseBlock, { type: 'mcp_tool_result' }>;
    }
  | { type: 'content_block_delta'; index: number; delta: { type: 'text_delta'; text: string } | { type: 'input_json_delta'; partial_json: string } }
  | { type: 'content_block_stop'; index: number }
  | { type: 'message_delta'; delta: { stop_reason: MessagesStopReason | null; stop_sequence: string | null }; usage: MessagesUsage }
  | { type: 'message_stop' }
  | { type: 'error'; error: MessagesErrorBody };
