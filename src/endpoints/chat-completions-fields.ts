import { GatewayError } from '../errors/gateway-error.js';
import type { ChatCompletionBody } from './validation/chat-schema.js';

/**
 * What /v1/chat/completions does with the SDK-declared fields the hub does not carry (DESIGN §5):
 * fields that steer igw itself, fields dropped and named in igw-ignored-params (their loss does
 * not change the answer), and fields refused by name (their loss would).
 */

/** Fields that steer the gateway: read by the endpoint, never sent upstream, never "ignored". */
export const GATEWAY_FIELDS = ['preset', 'request_id', 'blueprint_id', 'blueprint_config', 'variables', 'skill_ids', 'skill_configs'] as const;

/** OpenAI platform features with no effect on the answer's content: dropped and named. */
export const UNHONOURED_FIELDS = ['store', 'metadata', 'service_tier', 'prompt_cache_key', 'prompt_cache_retention', 'prompt_cache_options', 'safety_identifier', 'verbosity', 'prediction', 'moderation'] as const;

/** Fields refused below: never sent upstream either. */
const REFUSED_FIELDS = ['audio', 'modalities', 'functions', 'function_call', 'web_search_options'] as const;

/** Every top-level field the hub request leaves out. */
export const NOT_FOR_THE_HUB: ReadonlySet<string> = new Set([...GATEWAY_FIELDS, ...UNHONOURED_FIELDS, ...REFUSED_FIELDS]);

/** The declared fields of this body that igw drops, as igw-ignored-params names them. */
export function unhonouredChatFields(body: ChatCompletionBody): string[] {
  const names: string[] = UNHONOURED_FIELDS.filter((field) => body[field] != null);
  if (body.stream_options?.include_obfuscation === true) names.push('stream_options.include_obfuscation');
  return names;
}

/**
 * Declared fields igw cannot honour whose loss would change the answer: refused by name, with
 * what to send instead.
 */
export function refuseUnservableChatFields(body: ChatCompletionBody): void {
  const refuse = (field: string, why: string) => {
    throw new GatewayError('VALIDATION_4005', `"${field}" is not supported by igw: ${why}`, { field });
  };
  if (body.audio != null || body.modalities?.includes('audio') === true) refuse(body.audio != null ? 'audio' : 'modalities', 'igw answers in text only; send the request without audio output.');
  if (body.functions !== undefined) refuse('functions', 'the deprecated function-calling fields are not translated; send "tools" with type "function" instead.');
  if (body.function_call !== undefined) refuse('function_call', 'the deprecated function-calling fields are not translated; send "tool_choice" instead.');
  if (body.web_search_options !== undefined) refuse('web_search_options', 'igw runs no web search on chat completions; use /v1/responses with a web_search tool on a provider that speaks the Responses API.');
  const policy = body.moderation?.policy;
  if (policy?.input?.mode === 'block' || policy?.output?.mode === 'block') {
    refuse('moderation', 'igw runs no moderation, so it cannot block flagged content; send the request without "moderation" or with mode "score".');
  }
}
