import type { ChatRequest } from '../chat/types.js';
import { checkUnsupportedParameters } from './check-unsupported-parameters.js';
import { convertMessages } from './convert-messages.js';
import { convertToolChoice, convertTools } from './convert-tools.js';
import { invalidForAnthropic } from './invalid-for-anthropic.js';
import { planOutputBudget, type OutputBudgetOptions } from './plan-output-budget.js';
import { planStructuredOutput } from './plan-structured-output.js';
import type { AnthropicRequest, AnthropicTextBlock } from './types.js';

export interface AnthropicRequestOptions extends OutputBudgetOptions {
  /** The provider's own model id (the route's upstream_model). */
  model: string;
  stream: boolean;
}

export interface AnthropicRequestPlan {
  body: AnthropicRequest;
  /**
   * Set when response_format is served by a forced tool (see plan-structured-output.ts): the
   * response and stream mappers turn this tool's input back into message content.
   */
  structuredOutputTool: string | undefined;
}

/**
 * Hub ChatRequest → the body of POST /v1/messages. Pure; throws VALIDATION_4005 for what the
 * Messages API cannot carry (check-unsupported-parameters.ts) instead of dropping it. Only the
 * fields below are written, so OpenAI-only fields (stream_options, n, …) never reach Anthropic.
 */
export function toAnthropicRequest(request: ChatRequest, options: AnthropicRequestOptions): AnthropicRequestPlan {
  checkUnsupportedParameters(request);
  const budget = planOutputBudget(request, options);
  if (budget.thinking !== undefined) checkThinkingCompatible(request);
  const { system, messages } = convertMessages(request.messages);
  const clientTools = request.tools !== undefined && request.tools.length > 0;
  const structured = planStructuredOutput(request.response_format, { clientTools, thinking: budget.thinking !== undefined });

  const body: AnthropicRequest = { model: options.model, max_tokens: budget.max_tokens, messages };
  const fullSystem = structured?.mode === 'instruction' ? withInstruction(system, structured.instruction) : system;
  if (fullSystem !== undefined) body.system = fullSystem;
  const stops = request.stop === undefined || request.stop === null ? [] : typeof request.stop === 'string' ? [request.stop] : request.stop;
  if (stops.length > 0) body.stop_sequences = [...stops];
  if (request.temperature != null) body.temperature = request.temperature;
  if (request.top_p != null) body.top_p = request.top_p;
  if (request.top_k != null) body.top_k = request.top_k;
  if (request.user !== undefined && request.user !== '') body.metadata = { user_id: request.user };
  if (clientTools) {
    body.tools = convertTools(request.tools ?? []);
    const choice = convertToolChoice(request.tool_choice, request.parallel_tool_calls);
    if (choice !== undefined) body.tool_choice = choice;
  } else if (structured?.mode === 'forced_tool') {
    body.tools = [structured.tool];
    body.tool_choice = { type: 'tool', name: structured.tool.name };
  }
  if (budget.thinking !== undefined) body.thinking = budget.thinking;
  if (options.stream) body.stream = true;
  return { body, structuredOutputTool: structured?.mode === 'forced_tool' ? structured.tool.name : undefined };
}

/**
 * Anthropic refuses these together with extended thinking; saying so here names the parameter
 * instead of relaying a provider 400.
 */
function checkThinkingCompatible(request: ChatRequest): void {
  const because = "is not supported together with reasoning_effort by this model's provider (kind anthropic)";
  if (request.temperature != null && request.temperature !== 1) throw invalidForAnthropic('temperature', `"temperature" other than 1 ${because}.`);
  if (request.top_k != null) throw invalidForAnthropic('top_k', `"top_k" ${because}.`);
  if (request.top_p != null && request.top_p < 0.95) throw invalidForAnthropic('top_p', `"top_p" below 0.95 ${because}.`);
  if (request.tool_choice === 'required' || typeof request.tool_choice === 'object') {
    throw invalidForAnthropic('tool_choice', `A forced tool_choice ("required" or a named function) ${because}; use "auto".`);
  }
}

function withInstruction(system: string | AnthropicTextBlock[] | undefined, instruction: string): string | AnthropicTextBlock[] {
  if (system === undefined) return instruction;
  if (typeof system === 'string') return `${system}\n\n${instruction}`;
  return [...system, { type: 'text', text: instruction }];
}
