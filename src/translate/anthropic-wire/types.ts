/**
 * The Anthropic Messages wire (POST /v1/messages), as far as igw writes or reads it. Wire names
 * stay snake_case. Request types are what igw sends (exact); response and stream types are what
 * the lenient schemas in providers/anthropic/wire.ts hand over after parsing (so nearly every
 * field may be null or absent, and unknown block or event types arrive as `unknown`).
 */

// ---- request (what igw sends) ----

export interface AnthropicTextBlock {
  type: 'text';
  text: string;
}

export type AnthropicImageSource = { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };

export interface AnthropicImageBlock {
  type: 'image';
  source: AnthropicImageSource;
}

export interface AnthropicToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export interface AnthropicToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string | AnthropicTextBlock[];
}

export type AnthropicRequestBlock = AnthropicTextBlock | AnthropicImageBlock | AnthropicToolUseBlock | AnthropicToolResultBlock;

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: string | AnthropicRequestBlock[];
}

export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
}

export type AnthropicToolChoice =
  | { type: 'auto'; disable_parallel_tool_use?: boolean }
  | { type: 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

export interface AnthropicRequest {
  model: string;
  messages: AnthropicMessage[];
  max_tokens: number;
  system?: string | AnthropicTextBlock[];
  stop_sequences?: string[];
  temperature?: number;
  top_p?: number;
  top_k?: number;
  metadata?: { user_id: string };
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  thinking?: { type: 'enabled'; budget_tokens: number };
  stream?: boolean;
}

// ---- response (what the lenient schemas hand over) ----

export interface AnthropicUsageCounts {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

export interface AnthropicUsage extends AnthropicUsageCounts {
  /**
   * Per sampling pass when the server ran more than one (context compaction): the top-level
   * counts then cover only the last pass, the iterations cover all of them.
   */
  iterations?: AnthropicUsageCounts[] | null;
}

export type AnthropicResponseBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string }
  | { type: 'redacted_thinking' }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  /** Block types igw does not use (server tools, compaction, …): carried, then ignored. */
  | { type: 'unknown'; block_type: string };

export interface AnthropicResponse {
  id?: string | null;
  model?: string | null;
  content: AnthropicResponseBlock[];
  stop_reason?: string | null;
  stop_sequence?: string | null;
  usage?: AnthropicUsage | null;
}

// ---- stream events (event name = payload `type`) ----

export type AnthropicContentBlockStart =
  | { type: 'text'; text?: string | null }
  | { type: 'thinking'; thinking?: string | null }
  | { type: 'redacted_thinking' }
  | { type: 'tool_use'; id: string; name: string; input?: unknown }
  | { type: 'unknown'; block_type: string };

export type AnthropicBlockDelta =
  | { type: 'text_delta'; text: string }
  | { type: 'input_json_delta'; partial_json: string }
  | { type: 'thinking_delta'; thinking: string }
  | { type: 'signature_delta' }
  | { type: 'unknown'; delta_type: string };

export type AnthropicStreamEvent =
  | { type: 'message_start'; message: { id?: string | null; model?: string | null; usage?: AnthropicUsage | null } }
  | { type: 'content_block_start'; index: number; content_block: AnthropicContentBlockStart }
  | { type: 'content_block_delta'; index: number; delta: AnthropicBlockDelta }
  | { type: 'content_block_stop'; index: number }
  | { type: 'message_delta'; delta: { stop_reason?: string | null; stop_sequence?: string | null }; usage?: AnthropicUsage | null }
  | { type: 'message_stop' }
  | { type: 'ping' }
  /** `{type: 'error', error: {type, message}}`, kept whole for the classifier. */
  | { type: 'error'; payload: unknown }
  /** Event types newer than igw: ignored, like the SDKs do. */
  | { type: 'unknown'; event_type: string };
