import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerSchema } from '../../../src/config/schema.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { UpstreamHttpClient } from '../../../src/providers/http-client.js';
import { createOpenAiCompatibleAdapter } from '../../../src/providers/openai-compatible/adapter.js';
import { applyQuirks, upstreamBodyForVendor, type Vendor } from '../../../src/providers/openai-compatible/quirks.js';
import { startFakeUpstream, type FakeUpstream } from '../../helpers/fake-upstream.js';
import { postJson, startTestGateway, upstreamConfig } from '../../helpers/gateway.js';
import { gatewayErrorOf } from '../../helpers/thrown.js';

const base = { model: 'up-model', messages: [{ role: 'user', content: 'hi' }], stream: false };
const everything = { ...base, top_k: 40, min_p: 0.05, seed: 7, logprobs: true, top_logprobs: 2, n: 2, logit_bias: { '50256': -100 }, user: 'u-1', max_tokens: 100, tool_choice: 'required' };

describe('applyQuirks', () => {
  it.each<Vendor>(['generic', 'vllm', 'llama-cpp', 'lmstudio', 'openrouter', 'together', 'xai'])('%s forwards every parameter as sent', (vendor) => {
    expect(applyQuirks(vendor, everything)).toEqual({ body: everything, refused: [] });
  });

  it('has a row for every vendor the config accepts', () => {
    const vendors = providerSchema.shape.vendor.unwrap().options;
    expect(vendors.length).toBeGreaterThan(10);
    for (const vendor of vendors) {
      expect(() => applyQuirks(vendor, base)).not.toThrow();
    }
  });

  // [vendor, body sent, body expected upstream (when nothing is refused), refused parameter names]
  it.each<[string, Vendor, Record<string, unknown>, Record<string, unknown> | null, string[]]>([
    ['openai refuses top_k', 'openai', { top_k: 40 }, null, ['top_k']],
    ['openai refuses min_p', 'openai', { min_p: 0.1 }, null, ['min_p']],
    ['openai leaves out a neutral min_p', 'openai', { min_p: 0 }, {}, []],
    ['openai sends max_tokens as max_completion_tokens', 'openai', { max_tokens: 50 }, { max_completion_tokens: 50 }, []],
    ['openai accepts both names set to one value', 'openai', { max_tokens: 50, max_completion_tokens: 50 }, { max_completion_tokens: 50 }, []],
    ['openai refuses both names set to different values', 'openai', { max_tokens: 50, max_completion_tokens: 60 }, null, ['max_tokens']],
    ['openai keeps seed, logprobs, n, user', 'openai', { seed: 1, logprobs: true, top_logprobs: 3, n: 2, user: 'u' }, { seed: 1, logprobs: true, top_logprobs: 3, n: 2, user: 'u' }, []],
    ['azure refuses top_k and min_p', 'azure', { top_k: 5, min_p: 0.2 }, null, ['top_k', 'min_p']],
    ['azure keeps max_tokens for a non-reasoning model', 'azure', { model: 'gpt-4o', max_tokens: 50 }, { model: 'gpt-4o', max_tokens: 50 }, []],
    ['azure renames max_tokens for a reasoning model', 'azure', { model: 'o3-mini', max_tokens: 50 }, { model: 'o3-mini', max_completion_tokens: 50 }, []],
    ['groq refuses logprobs', 'groq', { logprobs: true, top_logprobs: 2 }, null, ['logprobs', 'top_logprobs']],
    ['groq leaves out logprobs: false and top_logprobs: 0', 'groq', { logprobs: false, top_logprobs: 0 }, {}, []],
    ['groq refuses n > 1', 'groq', { n: 3 }, null, ['n']],
    ['groq leaves out n: 1', 'groq', { n: 1 }, {}, []],
    ['groq refuses a logit_bias', 'groq', { logit_bias: { '1': 5 } }, null, ['logit_bias']],
    ['groq leaves out an empty logit_bias', 'groq', { logit_bias: {} }, {}, []],
    ['groq refuses top_k and min_p', 'groq', { top_k: 3, min_p: 0.1 }, null, ['top_k', 'min_p']],
    ['groq keeps seed and max_tokens', 'groq', { seed: 3, max_tokens: 9 }, { seed: 3, max_tokens: 9 }, []],
    ['mistral sends seed as random_seed', 'mistral', { seed: 42 }, { random_seed: 42 }, []],
    ['mistral sends max_completion_tokens as max_tokens', 'mistral', { max_completion_tokens: 64 }, { max_tokens: 64 }, []],
    ['mistral leaves out user (no effect on output)', 'mistral', { user: 'u-1', n: 2 }, { n: 2 }, []],
    ['mistral refuses top_k and min_p', 'mistral', { top_k: 10, min_p: 0.1 }, null, ['top_k', 'min_p']],
    ['mistral refuses logprobs', 'mistral', { logprobs: true }, null, ['logprobs']],
    ['deepseek refuses top_k and min_p', 'deepseek', { top_k: 10, min_p: 0.3 }, null, ['top_k', 'min_p']],
    ['deepseek refuses n > 1', 'deepseek', { n: 2 }, null, ['n']],
    ['deepseek sends max_completion_tokens as max_tokens', 'deepseek', { max_completion_tokens: 64 }, { max_tokens: 64 }, []],
    ['deepseek keeps logprobs', 'deepseek', { logprobs: true, top_logprobs: 2 }, { logprobs: true, top_logprobs: 2 }, []],
    ['ollama refuses top_k (native API only)', 'ollama', { top_k: 20 }, null, ['top_k']],
    ['ollama refuses a forced tool_choice', 'ollama', { tool_choice: 'required' }, null, ['tool_choice']],
    ['ollama leaves out tool_choice auto and user', 'ollama', { tool_choice: 'auto', user: 'u' }, {}, []],
    ['ollama keeps seed and max_tokens', 'ollama', { seed: 1, max_tokens: 5 }, { seed: 1, max_tokens: 5 }, []],
  ])('%s', (_name, vendor, sent, expected, refused) => {
    const result = applyQuirks(vendor, { ...base, ...sent });
    expect(result.refused.map((item) => item.parameter)).toEqual(refused);
    if (expected !== null) expect(result.body).toEqual({ ...base, ...expected });
  });

  it('does not change its input', () => {
    const body = { ...base, seed: 1, user: 'u', top_k: 3 };
    const copy = structuredClone(body);
    applyQuirks('mistral', body);
    expect(body).toEqual(copy);
  });
});

describe('upstreamBodyForVendor', () => {
  it('returns the vendor body when nothing is refused', () => {
    expect(upstreamBodyForVendor('mistral', { ...base, seed: 5 }, 'mistral-eu')).toEqual({ ...base, random_seed: 5 });
  });

  it('refuses with VALIDATION_4005 naming the parameters and the vendor', () => {
    const error = gatewayErrorOf(() => upstreamBodyForVendor('groq', { ...base, top_k: 5, logprobs: true }, 'fast'));
    expect(error.code).toBe('VALIDATION_4005');
    expect(error.status).toBe(400);
    expect(error.message).toBe('Provider "fast" (vendor groq) does not accept "top_k", "logprobs": remove them, or use a model served by a provider that supports them.');
    expect(error.details).toEqual({ field: 'top_k', parameters: ['top_k', 'logprobs'], provider: 'fast', vendor: 'groq' });
  });

  it('explains a conflict between two names for one setting', () => {
    const error = gatewayErrorOf(() => upstreamBodyForVendor('openai', { ...base, max_tokens: 5, max_completion_tokens: 6 }, 'oa'));
    expect(error.message).toBe('Provider "oa" (vendor openai) takes "max_tokens" as "max_completion_tokens", and the two are set to different values: send only one.');
    expect(error.details).toMatchObject({ field: 'max_tokens' });
  });
});

describe('the adapter applies the quirks of its vendor', () => {
  let upstream: FakeUpstream;
  let httpClient: UpstreamHttpClient;
  const completion = {
    id: 'c1',
    object: 'chat.completion',
    created: 1,
    model: 'up-model',
    choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };

  beforeAll(async () => {
    upstream = await startFakeUpstream(() => ({ json: completion }));
    httpClient = new UpstreamHttpClient();
  });
  afterAll(async () => {
    await httpClient.close();
    await upstream.close();
  });

  const adapterFor = (vendor?: Vendor) =>
    createOpenAiCompatibleAdapter({ id: 'p', baseUrl: upstream.url, headers: {}, timeoutMs: 2_000, ...(vendor === undefined ? {} : { vendor }) }, httpClient);
  const context = { signal: new AbortController().signal, upstreamModel: 'up-model', requestId: 'r1' };
  const request = { model: 'alias', messages: [{ role: 'user' as const, content: 'hi' }], seed: 9, top_k: 4 };

  it('generic (the default) forwards top_k and seed', async () => {
    const before = upstream.requests.length;
    await adapterFor().chat(request, context);
    expect(upstream.requests[before]!.body).toMatchObject({ seed: 9, top_k: 4 });
  });

  it('mistral: refused before anything is sent', async () => {
    const before = upstream.requests.length;
    await expect(adapterFor('mistral').chat(request, context)).rejects.toMatchObject({ code: 'VALIDATION_4005', details: { field: 'top_k' } });
    const stream = adapterFor('mistral').chatStream(request, context)[Symbol.asyncIterator]();
    await expect(stream.next()).rejects.toBeInstanceOf(GatewayError);
    expect(upstream.requests.length).toBe(before);
  });

  it('mistral: renamed on the wire', async () => {
    const { top_k: _topK, ...accepted } = request;
    const before = upstream.requests.length;
    await adapterFor('mistral').chat(accepted, context);
    expect(upstream.requests[before]!.body).toMatchObject({ random_seed: 9 });
    expect(upstream.requests[before]!.body).not.toHaveProperty('seed');
  });
});

describe('the registry hands the configured vendor to the adapter', () => {
  it('a mistral provider gets random_seed; top_k is a 400 naming it', async () => {
    const upstream = await startFakeUpstream(() => ({
      json: { id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } },
    }));
    const config = upstreamConfig(upstream.url);
    (config['providers'] as Record<string, Record<string, unknown>>)['up']!['vendor'] = 'mistral';
    const igw = await startTestGateway(config);
    try {
      const ok = await postJson(`${igw.url}/v1/chat/completions`, igw.key, { model: 'up-chat', messages: [{ role: 'user', content: 'hi' }], seed: 3 });
      expect(ok.status).toBe(200);
      expect(upstream.requests.at(-1)!.body).toMatchObject({ random_seed: 3 });
      const before = upstream.requests.length;
      const refused = await postJson(`${igw.url}/v1/chat/completions`, igw.key, { model: 'up-chat', messages: [{ role: 'user', content: 'hi' }], top_k: 3 });
      expect(refused.status).toBe(400);
      expect(refused.json.error).toMatchObject({ code: 'VALIDATION_4005', details: { field: 'top_k' } });
      expect(upstream.requests.length).toBe(before);
    } finally {
      await igw.close();
      await upstream.close();
    }
  });
});
