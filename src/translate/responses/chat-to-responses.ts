import type { ChatResponse, ChatUsage, FinishReason, ToolCall } from '../chat/types.js';
import { itemId, messageItem, reasoningItem, toolCallItem } from './output-items.js';
import type { ToolPlan } from './tools.js';
import type { ResponseObject, ResponsesError, ResponsesOutputItem, ResponsesRequest } from './types.js';
import { toResponsesUsage } from './usage.js';

export interface ResponseIdentity {
  /** `resp_…`, chosen by the endpoint. */
  id: string;
  /** Unix seconds. */
  createdAt: number;
  /** The model string the client sent (echoed). */
  model: string;
}

/**
 * The response object before any output: what response.created carries, and the frame every
 * later state fills. Request settings are echoed the way OpenAI echoes them; `store` is always
 * false (spec: responses are never retained).
 */
export function responseSkeleton(request: ResponsesRequest, identity: ResponseIdentity): ResponseObject {
  return {
    id: identity.id,
    object: 'response',
    created_at: identity.createdAt,
    model: identity.model,
    status: 'in_progress',
    error: null,
    incomplete_details: null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    output: [],
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: { effort: request.reasoning?.effort ?? null, summary: null },
    store: false,
    temperature: request.temperature ?? null,
    text: { format: request.text?.format ?? { type: 'text' } },
    tool_choice: request.tool_choice ?? 'auto',
    tools: request.tools ?? [],
    top_p: request.top_p ?? null,
    truncation: 'disabled',
    usage: null,
    user: request.user ?? null,
    metadata: request.metadata ?? {},
  };
}

/** One model turn's output as items, plus the calls igw must run itself (file_search, mcp). */
export interface TurnOutput {
  items: ResponsesOutputItem[];
  internalCalls: ToolCall[];
  finishReason: FinishReason | null;
}

/**
 * A hub answer (one model turn) → output items, numbered from `firstIndex`, in the order the
 * stream state machine emits them: a reasoning item when the model reported its reasoning
 * (hub reasoning_content), a message item when there is text (a refusal counts as text), then the function calls, then the custom / shell / apply_patch calls (the stream holds those
 * until their arguments are complete). file_search calls are returned apart: the caller runs
 * them and adds their items after these.
 */
export function turnOutput(response: ChatResponse, tools: ToolPlan, responseId: string, firstIndex: number): TurnOutput {
  const choice = response.choices[0];
  const items: ResponsesOutputItem[] = [];
  const internalCalls: ToolCall[] = [];
  const text = (choice?.message.content ?? '') + (choice?.message.refusal ?? '');
  const finishReason = choice?.finish_reason ?? null;
  const reasoning = choice?.message.reasoning_content ?? '';
  if (reasoning !== '') items.push(reasoningItem(itemId('reasoning', responseId, firstIndex), reasoning));
  if (text !== '') items.push(messageItem(itemId('message', responseId, firstIndex + items.length), text, messageStatus(finishReason)));
  const calls = choice?.message.tool_calls ?? [];
  const kindOf = (call: ToolCall) => tools.kinds.get(call.function.name) ?? 'function';
  for (const call of calls) if (kindOf(call) === 'function') items.push(toolCallItem(call, 'function', responseId, firstIndex + items.length, tools.namespaced));
  for (const call of calls) {
    const kind = kindOf(call);
    if (kind === 'custom' || kind === 'shell' || kind === 'apply_patch') items.push(toolCallItem(call, kind, responseId, firstIndex + items.length, tools.namespaced));
    else if (kind === 'file_search' || kind === 'mcp') internalCalls.push(call);
  }
  return { items, internalCalls, finishReason };
}

/** A message cut short (max tokens, safety filter) is `incomplete`; otherwise `completed`. */
export function messageStatus(finishReason: FinishReason | null): 'completed' | 'incomplete' {
  return finishReason === 'length' || finishReason === 'content_filter' ? 'incomplete' : 'completed';
}

export const CONTENT_FILTER_ERROR: ResponsesError = { code: 'INFERENCE_3208', message: "The provider's safety filter stopped the output." };

/**
 * The finished response (spec "Responses-style status"): `completed`, or `failed` when the
 * provider's content filter stopped the output or `error` says the provider failed after the
 * call started. A max-tokens stop stays `completed` (the spec's two statuses) and says so in
 * incomplete_details.
 */
export function finishResponse(skeleton: ResponseObject, output: ResponsesOutputItem[], finishReason: FinishReason | null, usage: ChatUsage | null, error?: ResponsesError): ResponseObject {
  const failure = error ?? (finishReason === 'content_filter' ? CONTENT_FILTER_ERROR : undefined);
  return {
    ...skeleton,
    status: failure === undefined ? 'completed' : 'failed',
    error: failure ?? null,
    incomplete_details: failure === undefined && finishReason === 'length' ? { reason: 'max_output_tokens' } : null,
    output,
    usage: usage === null ? null : toResponsesUsage(usage),
  };
}
