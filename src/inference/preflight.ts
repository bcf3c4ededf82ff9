import type { ModelConfig } from '../config/schema.js';
import { GatewayError } from '../errors/gateway-error.js';
import { countChatPromptTokens } from '../tokens/tokenizer.js';
import type { ChatMessage, ChatRequest } from '../translate/chat/types.js';
import type { InferenceScope } from './scope.js';

/** Stage "preflight (balances)": BILLING_2001/2003 before any upstream call (the cost is settled after). */
export function preflightBalance(scope: InferenceScope): void {
  scope.deps.ledger.preflight(scope.account);
}

function hasImage(messages: readonly ChatMessage[]): boolean {
  return messages.some((message) => message.role === 'user' && Array.isArray(message.content) && message.content.some((part) => part.type === 'image_url'));
}

/** Upper bound on prompt tokens without tokenizing: a byte-level BPE token is at least one byte. */
function byteUpperBound(messages: readonly ChatMessage[]): number {
  let bytes = 0;
  for (const message of messages) bytes += Buffer.byteLength(JSON.stringify(message)) + 8;
  return bytes;
}

/**
 * Stage "preflight (capabilities)" of a hub request (spec INFERENCE_3201/3202/3207). The real
 * tokenizer runs only when the cheap byte bound says the prompt might not fit.
 */
export function checkChatCapabilities(modelId: string, model: ModelConfig, request: ChatRequest): void {
  if (hasImage(request.messages) && model.capabilities.vision !== true) {
    throw new GatewayError('INFERENCE_3201', `Model "${modelId}" does not accept images; remove the image_url parts or pick a vision model (GET /v1/models?include_meta=true).`, {
      model: modelId,
    });
  }
  if (request.tools !== undefined && request.tools.length > 0 && model.capabilities.function_calling !== true) {
    throw new GatewayError('INFERENCE_3202', `Model "${modelId}" does not support tools; remove "tools" or pick a model with function_calling.`, { model: modelId });
  }
  const contextLength = model.context_length;
  if (contextLength === undefined || byteUpperBound(request.messages) <= contextLength) return;
  const inputTokens = countChatPromptTokens(request.messages);
  const reserved = request.max_completion_tokens ?? request.max_tokens ?? 0;
  if (inputTokens + reserved > contextLength) {
    throw new GatewayError(
      'INFERENCE_3207',
      `The input (${inputTokens} tokens${reserved > 0 ? ` plus max_tokens ${reserved}` : ''}) exceeds the context window of "${modelId}" (${contextLength} tokens).`,
      { context_length: contextLength, input_tokens: inputTokens },
    );
  }
}
