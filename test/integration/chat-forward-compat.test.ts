import { describe, expect, it } from 'vitest';
import { postJson, upstreamConfig } from '../helpers/gateway.js';
import { useUpstreamGateway } from '../helpers/upstream-suite.js';

/**
 * /v1/chat/completions and DESIGN §5 "Forward compatibility": every field openai 6.49 declares is
 * accepted; unknown fields go untouched to a provider that speaks the chat wire (kind openai)
 * and are dropped and named (igw-ignored-params) where igw translates (the built-in models);
 * declared fields with no effect on the answer are dropped and named; those whose loss would
 * change it are refused by name.
 */
describe('/v1/chat/completions forward compatibility', () => {
  const answer = { id: 'c', object: 'chat.completion', created: 1, model: 'real-model-1', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 2, completion_tokens: 1, total_tokens: 3 } };
  const configure = (url: string) => {
    const config = upstreamConfig(url) as { models: Record<string, Record<string, unknown>> };
    config.models['up-chat']!['reasoning_type'] = 'reasoning';
    return config;
  };
  const suite = useUpstreamGateway(() => ({ json: answer }), configure);
  const strict = useUpstreamGateway(() => ({ json: answer }), (url) => ({ ...configure(url), server: { strict_params: true } }));

  const chat = (model: string, extra: Record<string, unknown> = {}, gateway = suite.igw) => postJson(`${gateway.url}/v1/chat/completions`, gateway.key, { model, messages: [{ role: 'user', content: 'hi' }], ...extra });

  it('an unknown field reaches an OpenAI-kind provider untouched; nothing is named', async () => {
    const result = await chat('up-chat', { frobnicate_2027: { level: 2 } });
    expect(result.status).toBe(200);
    expect(suite.upstream.requests[0]!.body.frobnicate_2027).toEqual({ level: 2 });
    expect(result.headers.get('igw-ignored-params')).toBeNull();
  });

  it('an unknown field on a translated call (built-in model) is dropped and named', async () => {
    const result = await chat('local-echo', { frobnicate_2027: true });
    expect(result.status).toBe(200);
    expect(result.json.choices[0].message.content).toBe('hi');
    expect(result.headers.get('igw-ignored-params')).toBe('frobnicate_2027');
  });

  it('server.strict_params: true refuses the unknown name', async () => {
    const result = await chat('local-echo', { frobnicate_2027: true }, strict.igw);
    expect(result.status).toBe(400);
    expect(result.json.error).toMatchObject({ code: 'VALIDATION_4005', param: 'frobnicate_2027', details: { field: 'frobnicate_2027' } });
  });

  it('declared platform fields igw does not act on are accepted, kept from the provider and named', async () => {
    const result = await chat('up-chat', { store: true, metadata: { a: 'b' }, service_tier: 'flex', prompt_cache_key: 'k', prompt_cache_retention: '24h', safety_identifier: 's', verbosity: 'low', prediction: { type: 'content', content: 'x' }, moderation: { model: 'omni-moderation-latest', policy: { input: { mode: 'score' } } } });
    expect(result.status).toBe(200);
    expect(result.headers.get('igw-ignored-params')!.split(', ').sort()).toEqual(['metadata', 'moderation', 'prediction', 'prompt_cache_key', 'prompt_cache_retention', 'safety_identifier', 'service_tier', 'store', 'verbosity']);
    for (const field of ['store', 'metadata', 'service_tier', 'verbosity', 'prediction', 'moderation']) expect(suite.upstream.requests[0]!.body).not.toHaveProperty(field);
  });

  it.each([
    ['audio output', { audio: { voice: 'alloy', format: 'mp3' }, modalities: ['text', 'audio'] }, 'audio'],
    ['audio modality', { modalities: ['text', 'audio'] }, 'modalities'],
    ['deprecated functions', { functions: [{ name: 'f' }] }, 'functions'],
    ['deprecated function_call', { function_call: 'auto' }, 'function_call'],
    ['web_search_options', { web_search_options: {} }, 'web_search_options'],
    ['blocking moderation', { moderation: { model: 'omni-moderation-latest', policy: { output: { mode: 'block' } } } }, 'moderation'],
  ])('refuses %s by name (dropping it would change the answer)', async (_name, extra, field) => {
    const result = await chat('up-chat', extra);
    expect(result.status).toBe(400);
    expect(result.json.error).toMatchObject({ code: 'VALIDATION_4005', type: 'invalid_request_error', param: field });
    expect(suite.upstream.requests).toHaveLength(0);
  });

  it('every reasoning effort the SDK declares is accepted, at the nearest level igw knows', async () => {
    for (const [effort, sent] of [['minimal', 'low'], ['xhigh', 'high'], ['max', 'high'], ['medium', 'medium'], ['none', undefined]] as const) {
      suite.upstream.requests.length = 0;
      expect((await chat('up-chat', { reasoning_effort: effort })).status).toBe(200);
      expect(suite.upstream.requests[0]!.body.reasoning_effort).toBe(sent);
    }
  });

  it('a reasoning effort sent to a model that does not reason is dropped and named', async () => {
    const result = await chat('local-echo', { reasoning_effort: 'high' });
    expect(result.status).toBe(200);
    expect(result.headers.get('igw-ignored-params')).toBe('reasoning_effort');
  });

  it('allowed_tools: only the listed functions are offered, with its mode as the choice', async () => {
    const tools = ['a', 'b', 'c'].map((name) => ({ type: 'function', function: { name, parameters: { type: 'object', properties: {} } } }));
    const result = await chat('up-chat', { tools, tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'required', tools: [{ type: 'function', function: { name: 'b' } }] } } });
    expect(result.status).toBe(200);
    expect(suite.upstream.requests[0]!.body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(['b']);
    expect(suite.upstream.requests[0]!.body.tool_choice).toBe('required');
    const missing = await chat('up-chat', { tools, tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [{ type: 'function', function: { name: 'z' } }] } } });
    expect(missing.status).toBe(400);
    expect(missing.json.error.param).toBe('tool_choice.allowed_tools.tools[0].function.name');
  });

  it('stream_options.include_obfuscation is accepted (igw pads nothing) and named', async () => {
    const result = await postJson(`${suite.igw.url}/v1/chat/completions`, suite.igw.key, { model: 'local-echo', stream: true, stream_options: { include_usage: true, include_obfuscation: true }, messages: [{ role: 'user', content: 'hi' }] });
    expect(result.status).toBe(200);
    expect(result.headers.get('igw-ignored-params')).toBe('stream_options.include_obfuscation');
  });
});
