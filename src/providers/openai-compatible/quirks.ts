import type { ProviderConfig } from '../../config/schema.js';
import { GatewayError } from '../../errors/gateway-error.js';

/**
 * Vendor differences inside the OpenAI-compatible kind, as data (ARCHITECTURE principle 4),
 * chosen by the provider's `vendor` in the config. Applied to the upstream chat body after the
 * adapter has built it. Nothing the client set that changes the result is dropped silently
 * (principle 6): a parameter the vendor does not accept is refused by name (VALIDATION_4005)
 * unless it has its neutral value, which asks for nothing and so is simply left out.
 *
 * Each row follows the vendor's public API reference (cited on the row). Vendors whose servers
 * accept every parameter igw forwards (or that answer for themselves with a clear error) have
 * an empty row; add to a row only what a vendor's reference documents.
 */

export type Vendor = ProviderConfig['vendor'];

interface VendorQuirks {
  /** Parameters the vendor does not accept: refused, or left out when neutral (NEUTRAL_VALUES). */
  unsupported?: readonly string[];
  /** Same meaning under another name upstream: client name → vendor name. */
  renames?: Readonly<Record<string, string>>;
  /** Renames that apply only to upstream models whose id matches. */
  modelRenames?: { models: RegExp; renames: Readonly<Record<string, string>> };
  /** Parameters with no effect on the output that the vendor does not accept: left out. */
  dropped?: readonly string[];
}

/** Values that ask for nothing beyond the API default: leaving them out changes nothing. */
const NEUTRAL_VALUES: Readonly<Record<string, (value: unknown) => boolean>> = {
  n: (value) => value === 1,
  logprobs: (value) => value === false,
  top_logprobs: (value) => value === 0,
  min_p: (value) => value === 0,
  logit_bias: (value) => typeof value === 'object' && value !== null && Object.keys(value).length === 0,
  tool_choice: (value) => value === 'auto',
};

/** OpenAI reasoning models (o-series, gpt-5 family) refuse `max_tokens`. */
const OPENAI_REASONING_MODELS = /^(o\d|gpt-5)/i;

const QUIRKS: Readonly<Record<Vendor, VendorQuirks>> = {
  generic: {},
  // platform.openai.com/docs/api-reference/chat/create: no top_k / min_p; max_tokens is
  // "deprecated in favor of max_completion_tokens, and is not compatible with o-series models"
  // (recorded: fixtures/recorded/errors/openai-chat-400-unsupported-parameter.json).
  // max_completion_tokens is accepted by every model there, so it is always the name sent.
  openai: { unsupported: ['top_k', 'min_p'], renames: { max_tokens: 'max_completion_tokens' } },
  // learn.microsoft.com/azure/ai-foundry/openai/reference (chat completions) and "reasoning
  // models": same parameters as OpenAI; reasoning deployments need max_completion_tokens. Older
  // api-versions do not know max_completion_tokens, so other models keep max_tokens.
  azure: { unsupported: ['top_k', 'min_p'], modelRenames: { models: OPENAI_REASONING_MODELS, renames: { max_tokens: 'max_completion_tokens' } } },
  // console.groq.com/docs/openai: "logprobs, logit_bias, top_logprobs … will result in a 400
  // error"; "If N is supplied, it must be equal to 1". The API reference has no top_k / min_p.
  groq: { unsupported: ['top_k', 'min_p', 'logprobs', 'top_logprobs', 'logit_bias', 'n'] },
  // docs.mistral.ai/api (chat completion request): random_seed, max_tokens; no top_k, min_p,
  // logprobs, top_logprobs, logit_bias or user.
  mistral: {
    unsupported: ['top_k', 'min_p', 'logprobs', 'top_logprobs', 'logit_bias'],
    renames: { seed: 'random_seed', max_completion_tokens: 'max_tokens' },
    dropped: ['user'],
  },
  // api-docs.deepseek.com/api/create-chat-completion: max_tokens; no top_k, min_p, logit_bias, n
  // (unknown fields are ignored there, which is exactly the silent drop we refuse to do).
  deepseek: { unsupported: ['top_k', 'min_p', 'logit_bias', 'n'], renames: { max_completion_tokens: 'max_tokens' } },
  // github.com/ollama/ollama docs/openai.md "Supported request fields" for /v1/chat/completions:
  // max_tokens, seed, top_p, …; not top_k / min_p (options of the native API only), logit_bias,
  // n, tool_choice, logprobs (unchecked) or user. Unsupported fields are ignored, not refused.
  ollama: {
    unsupported: ['top_k', 'min_p', 'logit_bias', 'n', 'tool_choice', 'logprobs', 'top_logprobs'],
    renames: { max_completion_tokens: 'max_tokens' },
    dropped: ['user'],
  },
  // docs.vllm.ai (OpenAI-compatible server, "extra parameters"): top_k, min_p and the rest.
  vllm: {},
  // github.com/ggml-org/llama.cpp tools/server/README.md: top_k, min_p accepted on /v1/chat/completions.
  'llama-cpp': {},
  // lmstudio.ai/docs (OpenAI compatibility): top_k and the sampling parameters are accepted.
  lmstudio: {},
  // openrouter.ai/docs/api-reference/parameters: top_k, min_p, logit_bias, logprobs are parameters.
  openrouter: {},
  // docs.together.ai/reference/chat-completions: top_k, min_p, logprobs are parameters.
  together: {},
  // No quirk recorded yet: the upstream answers for itself.
  xai: {},
};

export interface RefusedParameter {
  parameter: string;
  /** `unsupported`: the vendor has no such parameter. `conflict`: two names for one value, set differently. */
  reason: 'unsupported' | 'conflict';
  /** For `conflict`: the other name. */
  other?: string;
}

export interface QuirksResult {
  body: Record<string, unknown>;
  refused: RefusedParameter[];
}

/**
 * The upstream chat body as the vendor wants it, plus the parameters it cannot honour. Pure:
 * the input body is not changed. `body.model` (the upstream model id) selects model renames.
 */
export function applyQuirks(vendor: Vendor, body: Readonly<Record<string, unknown>>): QuirksResult {
  const quirks = QUIRKS[vendor];
  const result: Record<string, unknown> = { ...body };
  const refused: RefusedParameter[] = [];

  for (const parameter of quirks.unsupported ?? []) {
    if (!(parameter in result)) continue;
    const neutral = NEUTRAL_VALUES[parameter];
    if (neutral !== undefined && neutral(result[parameter])) delete result[parameter];
    else refused.push({ parameter, reason: 'unsupported' });
  }
  for (const parameter of quirks.dropped ?? []) delete result[parameter];

  const model = typeof body['model'] === 'string' ? body['model'] : '';
  const renames = { ...quirks.renames, ...(quirks.modelRenames !== undefined && quirks.modelRenames.models.test(model) ? quirks.modelRenames.renames : {}) };
  for (const [from, to] of Object.entries(renames)) {
    if (!(from in result)) continue;
    const value = result[from];
    delete result[from];
    if (!(to in result)) result[to] = value;
    else if (result[to] !== value) refused.push({ parameter: from, reason: 'conflict', other: to });
  }
  return { body: result, refused };
}

/**
 * applyQuirks for the adapter: the body to send, or VALIDATION_4005 naming the parameters the
 * vendor cannot honour (details.field is the first of them) so the client can drop them.
 */
export function upstreamBodyForVendor(vendor: Vendor, body: Readonly<Record<string, unknown>>, providerId: string): Record<string, unknown> {
  const { body: result, refused } = applyQuirks(vendor, body);
  if (refused.length === 0) return result;
  const quoted = (names: string[]): string => names.map((name) => `"${name}"`).join(', ');
  const unsupported = refused.filter((item) => item.reason === 'unsupported').map((item) => item.parameter);
  const problems: string[] = [];
  if (unsupported.length > 0) {
    const them = unsupported.length === 1 ? 'it' : 'them';
    problems.push(`does not accept ${quoted(unsupported)}: remove ${them}, or use a model served by a provider that supports ${them}`);
  }
  for (const item of refused) {
    if (item.reason === 'conflict') problems.push(`takes "${item.parameter}" as "${item.other}", and the two are set to different values: send only one`);
  }
  const names = refused.map((item) => item.parameter);
  throw new GatewayError('VALIDATION_4005', `Provider "${providerId}" (vendor ${vendor}) ${problems.join('; it also ')}.`, {
    field: names[0]!,
    parameters: names,
    provider: providerId,
    vendor,
  });
}
