import { committedFailure, type ChatPlan, type InferenceScope, type Served } from '../inference/index.js';
import { makeUsage, type ChatMessage, type ChatRequest, type ChatResponse, type ChatUsage, type ToolCall } from '../translate/chat/types.js';
import type { ToolPlan } from '../translate/responses/tools.js';
import type { ResponseObject, ResponsesError, ResponsesOutputItem, ResponsesRequest } from '../translate/responses/types.js';
import type { ServerTools } from './responses-server-tools.js';

/*
 * What the turns of one answer share, whichever path runs them (responses.ts JSON,
 * responses-stream.ts, the native pass-through's errors, and messages-mcp.ts's MCP loop): kept
 * apart from the endpoint so those files need not import it back (no import cycle, issue 18).
 */

/** Most model turns one request may take while igw runs file_search for the model. */
export const MAX_MODEL_TURNS = 5;

/** Everything both the stream and the non-stream path need once the request is accepted. */
export interface PreparedResponses {
  request: ResponsesRequest;
  tools: ToolPlan;
  /** The first turn's hub call: target, shaped request, the blueprint's output guard or direct answer. */
  plan: ChatPlan;
  skeleton: ResponseObject;
  /** Tools igw runs itself between turns (file_search, mcp). */
  serverTools: ServerTools;
  /** Output made before the first model turn: MCP listings and the calls the client approved. */
  leading: ResponsesOutputItem[];
  /** Most model turns (MAX_MODEL_TURNS, lowered by max_tool_calls). */
  maxTurns: number;
}

/** The plan of a later turn: its request, and the route that answered first tried first, so one answer is one route's work. */
export function nextTurnPlan(plan: ChatPlan, served: Served, request: ChatRequest): ChatPlan {
  const candidates = [served.candidate, ...plan.target.candidates.filter((other) => other !== served.candidate)];
  return { ...plan, request, target: { ...plan.target, candidates } };
}

/**
 * The request for the next model turn: the model's own turn (text and its file_search calls)
 * and the search results appended. A forced tool choice has been honoured by now, so the next
 * turn may answer freely (otherwise a forced file_search would loop).
 */
export function continuedRequest(hub: ChatRequest, answer: Pick<ChatResponse, 'choices'>, internalCalls: ToolCall[], results: ChatMessage[]): ChatRequest {
  const text = answer.choices[0]?.message.content ?? '';
  const assistant: ChatMessage = { role: 'assistant', content: text === '' ? null : text, tool_calls: internalCalls };
  const next: ChatRequest = { ...hub, messages: [...hub.messages, assistant, ...results] };
  if (next.tool_choice !== undefined && next.tool_choice !== 'none') next.tool_choice = 'auto';
  return next;
}

/** A failure after the answer started, as the Responses error object (logged once via the pipeline). */
export function responsesErrorOf(scope: InferenceScope, error: unknown): ResponsesError {
  const gatewayError = committedFailure(scope, error, 'The provider failed.');
  return { code: gatewayError.code, message: gatewayError.message };
}

/** Token usage of several turns added up (one answer's total). */
export function addUsage(total: ChatUsage, more: ChatUsage): ChatUsage {
  return makeUsage(total.prompt_tokens + more.prompt_tokens, total.completion_tokens + more.completion_tokens, total.cached_tokens + (more.cached_tokens ?? 0), total.reasoning_tokens + (more.reasoning_tokens ?? 0));
}
