import type { ChatRequest } from '../chat/types.js';
import { invalidForAnthropic } from './invalid-for-anthropic.js';

/**
 * Hub parameters the Messages API has no field for. A neutral value (n 1, penalties 0, min_p 0,
 * logprobs false, top_logprobs 0, empty logit_bias) changes nothing and passes; anything else is
 * refused with VALIDATION_4005 rather than dropped, because the client would otherwise get a
 * different behaviour than it asked for without knowing.
 */
export function checkUnsupportedParameters(request: ChatRequest): void {
  const refuse = (field: string, what: string) =>
    invalidForAnthropic(field, `"${field}" ${what} is not supported by this model's provider (kind anthropic); remove it or pick a model served by an OpenAI-compatible provider.`);

  if (request.n !== undefined && request.n !== null && request.n !== 1) throw refuse('n', `= ${request.n} (several choices)`);
  if (request.logprobs === true) throw refuse('logprobs', '(token log probabilities)');
  if (request.top_logprobs !== undefined && request.top_logprobs !== null && request.top_logprobs > 0) throw refuse('top_logprobs', '(token log probabilities)');
  if (request.seed !== undefined && request.seed !== null) throw refuse('seed', '(deterministic sampling)');
  if (request.frequency_penalty !== undefined && request.frequency_penalty !== null && request.frequency_penalty !== 0) throw refuse('frequency_penalty', '(a non-zero penalty)');
  if (request.presence_penalty !== undefined && request.presence_penalty !== null && request.presence_penalty !== 0) throw refuse('presence_penalty', '(a non-zero penalty)');
  if (request.min_p !== undefined && request.min_p !== null && request.min_p !== 0) throw refuse('min_p', '(min-p sampling)');
  // Accepted by the chat schema for SDK compatibility but not part of the hub type.
  const logitBias = (request as { logit_bias?: Record<string, number> | null }).logit_bias;
  if (logitBias !== undefined && logitBias !== null && Object.keys(logitBias).length > 0) throw refuse('logit_bias', '(token biases)');

  // Anthropic's range is [0, 1] where OpenAI's is [0, 2]; the same number does not mean the same
  // randomness, so neither rescaling nor clamping would honour the request.
  if (request.temperature !== undefined && request.temperature !== null && request.temperature > 1) {
    throw invalidForAnthropic(
      'temperature',
      `"temperature" ${request.temperature} is out of range for this model's provider (kind anthropic), which accepts 0–1.`,
    );
  }
}
