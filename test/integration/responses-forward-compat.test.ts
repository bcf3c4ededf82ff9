import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { responsesApiUpstreamConfig, useUpstreamGateway } from '../helpers/upstream-suite.js';

/**
 * /v1/responses and DESIGN §5 "Forward compatibility": fields the official SDK declares are
 * accepted; translated through the chat hub, those with no effect on the answer are dropped and
 * named (igw-ignored-params), unknown ones too (refused with server.strict_params); passed
 * natively to a provider that speaks the Responses API, everything is forwarded as sent.
 */
describe('/v1/responses forward compatibility', () => {
  const completed = { id: 'resp_up', object: 'response', created_at: 1, model: 'gpt-up', status: 'completed', output: [{ type: 'message', id: 'msg_up', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'native', annotations: [] }] }], usage: { input_tokens: 3, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 4 } };
  const suite = useUpstreamGateway(
    () => ({ json: completed }),
    responsesApiUpstreamConfig,
  );
  let strictIgw: TestGateway;
  beforeAll(async () => {
    strictIgw = await startTestGateway({ server: { strict_params: true } });
  });
  afterAll(async () => strictIgw.close());

  const create = (body: Record<string, unknown>, gateway = suite.igw) => postJson(`${gateway.url}/v1/responses`, gateway.key, { model: 'local-echo', input: 'hello', ...body });

  it('translated: unknown names and declared fields without effect are dropped and named; the answer is unchanged', async () => {
    const result = await create({
      frobnicate_2027: 1,
      service_tier: 'flex',
      prompt_cache_key: 'k',
      client_metadata: { a: 'b' },
      reasoning: { effort: 'minimal', summary: 'auto' },
      include: ['reasoning.encrypted_content', 'message.output_text.logprobs'],
      context_management: [{ type: 'compaction', compact_threshold: 1000 }],
      top_logprobs: 2,
      tools: [{ type: 'function', name: 'f', parameters: { type: 'object' }, strict: null, defer_loading: true, future_hint: 'x' }],
    });
    expect(result.status, JSON.stringify(result.json)).toBe(200);
    expect(result.json.output[0].content[0].text).toBe('hello');
    expect(result.headers.get('igw-ignored-params')!.split(', ').sort()).toEqual(
      // local-echo does not reason: the effort is named too (spec: ignored by non-reasoning models).
      ['client_metadata', 'context_management', 'frobnicate_2027', 'include[]=message.output_text.logprobs', 'prompt_cache_key', 'reasoning.effort', 'reasoning.summary', 'service_tier', 'tools[].defer_loading', 'tools[].future_hint', 'top_logprobs'].sort(),
    );
  });

  it('server.strict_params: true refuses an unknown name', async () => {
    const result = await create({ frobnicate_2027: 1 }, strictIgw);
    expect(result.status).toBe(400);
    expect(result.json.error).toMatchObject({ code: 'VALIDATION_4005', type: 'invalid_request_error', param: 'frobnicate_2027' });
  });

  it('a blocking moderation policy is refused by name', async () => {
    const result = await create({ moderation: { model: 'omni-moderation-latest', policy: { input: { mode: 'block' } } } });
    expect(result.status).toBe(400);
    expect(result.json.error).toMatchObject({ code: 'VALIDATION_4005', param: 'moderation' });
  });

  it('native pass-through: the body goes to the provider as sent, unknown fields included, nothing named', async () => {
    const body = {
      model: 'up-chat',
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'news?' }], phase_2027: 'x' }],
      tools: [{ type: 'web_search', external_web_access: false }, { type: 'namespace', name: 'crm', description: 'd', tools: [{ type: 'function', name: 'find', parameters: { type: 'object' }, strict: false }] }],
      client_metadata: { 'x-codex-turn-metadata': '{}' },
      frobnicate_2027: { a: 1 },
      reasoning: { effort: 'xhigh', summary: 'auto' },
    };
    const result = await postJson(`${suite.igw.url}/v1/responses`, suite.igw.key, body);
    expect(result.status, JSON.stringify(result.json)).toBe(200);
    expect(result.headers.get('igw-ignored-params')).toBeNull();
    const { model: _model, ...rest } = body;
    expect(suite.upstream.requests[0]!.body).toEqual({ ...rest, model: 'real-model-1', stream: false, store: false });
  });
});
