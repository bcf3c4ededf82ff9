/**
 * The hub: chat-completions types (the spec's subset of the OpenAI chat wire, snake_case as on
 * the wire). Every surface translates to these and every provider adapter speaks only these.
 */

export interface TextPart { type: 'text'; text: string }
export interface ImagePart { type: 'image_url'; image_url: { url: string; detail?: 'auto' | 'low' | 'high' } }
export type ContentPart = TextPart | ImagePart;

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: 'system' | 'developer'; content: string | TextPart[]; name?: string }
  | { role: 'user'; content: string | ContentPart[]; name?: string }
  | { role: 'assistant'; content?: string | TextPart[] | null; name?: string; tool_calls?: ToolCall[]; reasoning_content?: string }
  | { role: 'tool'; content: string | TextPart[]; tool_call_id: string };

export interface FunctionTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: { name: string; description?: string; schema?: Record<string, unknown>; strict?: boolean } };

/** What is sent to an adapter: the validated client request minus gateway-only fields. */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  top_k?: number;
  min_p?: number;
  frequency_penalty?: number;
  presence_penalty?: number;
  stop?: string | string[] | null;
  seed?: number;
  user?: string;
  n?: number;
  stream?: boolean;
  stream_options?: { include_usage?: boolean } | null;
  tools?: FunctionTool[];
  tool_choice?: ToolChoice;
  parallel_tool_calls?: boolean;
  response_format?: ResponseFormat;
  logprobs?: boolean;
  top_logprobs?: number;
  reasoning_effort?: 'low' | 'medium' | 'high';
  /**
   * Top-level fields the client sent on the chat wire that igw does not know (DESIGN §5): a
   * provider that speaks that wire gets them as sent (openai-compatible adapter); a translating
   * provider never reads them (the endpoint names them in igw-ignored-params).
   */
  unknown_fields?: Record<string, unknown>;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'blocked' | 'blueprint_override';

export interface TokenLogprob {
  token: string;
  logprob: number;
  bytes: number[] | null;
  top_logprobs: Array<{ token: string; logprob: number; bytes: number[] | null }>;
}

export interface ChoiceLogprobs { content: TokenLogprob[] | null; refusal?: TokenLogprob[] | null }

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
}

export interface ChatChoice {
  index: number;
  message: {
    role: 'assistant';
    content: string | null;
    tool_calls: ToolCall[] | null;
    reasoning_content?: string;
    refusal?: string | null;
  };
  finish_reason: FinishReason | null;
  logprobs: ChoiceLogprobs | null;
}

export interface ChatResponse {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: ChatChoice[];
  usage: ChatUsage;
  system_fingerprint: string | null;
}

export interface ChunkToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

export interface ChunkChoice {
  index: number;
  delta: {
    role?: 'assistant';
    content?: string | null;
    reasoning_content?: string;
    refusal?: string | null;
    tool_calls?: ChunkToolCallDelta[];
  };
  finish_reason: FinishReason | null;
  logprobs?: ChoiceLogprobs | null;
}

export interface ChatChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: ChunkChoice[];
  usage?: ChatUsage | null;
  system_fingerprint?: string | null;
}

/** Builds a complete usage object from the two counts the providers agree on. */
export function makeUsage(promptTokens: number, completionTokens: number, cachedTokens = 0, reasoningTokens = 0): ChatUsage {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    cached_tokens: cachedTokens,
    reasoning_tokens: reasoningTokens,
    prompt_tokens_details: { cached_tokens: cachedTokens },
    completion_tokens_details: { reasoning_tokens: reasoningTokens },
  };
}
