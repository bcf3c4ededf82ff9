import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildConfig } from '../../src/config/load.js';
import { startFakeUpstream, type FakeHandler, type FakeUpstream } from '../helpers/fake-upstream.js';
import { postJson, startTestGateway, upstreamConfig, type TestGateway } from '../helpers/gateway.js';
import { readRecorded, readRecordedJson } from '../helpers/recorded.js';

/** Recorded captures (fixtures/recorded/openai-responses). */
const nonStreamAnswer = () => readRecordedJson('openai-responses/nonstream-text.json');

const streamAnswer = () => readRecorded('openai-responses/stream-text-after-function-output.sse');

async function rawStream(url: string, key: string, body: unknown): Promise<Array<Record<string, any>>> {
  const response = await fetch(`${url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify({ ...(body as object), stream: true }) });
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((frame) => frame.includes('data:'))
    .map((frame) => JSON.parse(/^data: (.*)$/m.exec(frame)![1]!));
}

/** web_search passes natively to a provider configured with responses_api: true (a fake OpenAI on loopback). */
describe('/v1/responses with hosted web search', () => {
  let upstream: FakeUpstream;
  let igw: TestGateway;
  let handler: FakeHandler;
  const reset = () => {
    handler = (request) => (request.body?.stream === true ? { status: 200, rawSse: streamAnswer() } : { json: nonStreamAnswer() });
  };
  reset();

  beforeAll(async () => {
    upstream = await startFakeUpstream((request) => handler(request));
    const base = upstreamConfig(upstream.url) as { providers: Record<string, unknown>; models: Record<string, unknown> };
    base.providers['oa'] = { kind: 'openai', base_url: upstream.url, api_key: 'sk-oa', timeout_ms: 2000, vendor: 'openai', responses_api: true, location: 'US' };
    base.models['oa-chat'] = {
      type: 'chat',
      capabilities: { streaming: true, function_calling: true },
      routes: [{ provider: 'oa', upstream_model: 'gpt-4o', pricing: { input_cost_per_million_eur: 2, output_cost_per_million_eur: 8 }, energy: { wh_per_1k_input_tokens: 0.1 } }],
    };
    igw = await startTestGateway(base);
  });
  afterAll(async () => {
    await igw.close();
    await upstream.close();
  });
  afterEach(() => {
    upstream.requests.length = 0;
    reset();
  });

  it('a model without a Responses-API provider, web search forced → 400 naming the providers that can', async () => {
    for (const type of ['web_search', 'web_search_preview'] as const) {
      for (const choice of [{ tool_choice: { type } }, { tool_choice: 'required', only: true }]) {
        const tools = 'only' in choice ? [{ type }] : [{ type: 'function', name: 'f' }, { type }];
        const index = tools.length - 1;
        const answer = await postJson(`${igw.url}/v1/responses`, igw.key, { model: 'up-chat', input: 'news?', tools, tool_choice: choice.tool_choice });
        expect(answer.status).toBe(400);
        expect(answer.json.error).toMatchObject({ code: 'VALIDATION_4005', details: { field: `tools[${index}].type`, providers: ['oa'] } });
        expect(answer.json.error.message).toContain('oa');
      }
    }
    expect(upstream.requests).toHaveLength(0);
  });

  it('a model without a Responses-API provider, web search only offered → dropped and named in igw-ignored-params; the model answers', async () => {
    handler = () => ({ json: { id: 'c', object: 'chat.completion', created: 1, model: 'real-model-1', choices: [{ index: 0, message: { role: 'assistant', content: 'no search needed' }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 } } });
    const answer = await postJson(`${igw.url}/v1/responses`, igw.key, { model: 'up-chat', input: 'hi', tools: [{ type: 'function', name: 'f' }, { type: 'web_search', search_context_size: 'low' }], tool_choice: 'auto' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('igw-ignored-params')).toBe('tools[].type=web_search');
    expect(answer.json.output).toEqual([expect.objectContaining({ type: 'message', content: [expect.objectContaining({ text: 'no search needed' })] })]);
    expect(answer.json.tools).toEqual([expect.objectContaining({ type: 'function', name: 'f' })]);
    expect(upstream.requests[0]!.path).toBe('/v1/chat/completions');
    expect(upstream.requests[0]!.body.tools).toEqual([{ type: 'function', function: { name: 'f' } }]);
  });

  it('file_search with web_search → 400', async () => {
    const answer = await postJson(`${igw.url}/v1/responses`, igw.key, { model: 'oa-chat', input: 'x', tools: [{ type: 'file_search', vector_store_ids: ['vs_1'] }, { type: 'web_search' }] });
    expect(answer.status).toBe(400);
    expect(answer.json.error.message).toContain('file_search');
  });

  it('create: passed natively to /responses, stateless, model echoed, metered', async () => {
    const response = await igw.openai().responses.create({ model: 'oa-chat', input: 'What is the capital of France?', tools: [{ type: 'web_search', search_context_size: 'low' } as never], store: true });
    expect(response.output_text).toBe('The capital of France is Paris.');
    expect(response.model).toBe('oa-chat');
    expect((response as unknown as { store: boolean }).store).toBe(false);
    const extra = response as unknown as { billing_cost: { credits: string }; environment_impact: { provider_id: string } };
    expect(extra.environment_impact.provider_id).toBe('oa');
    expect(Number(extra.billing_cost.credits)).toBeGreaterThan(0);
    const sent = upstream.requests[0]!;
    expect(sent.path).toBe('/v1/responses');
    expect(sent.headers.authorization).toBe('Bearer sk-oa');
    expect(sent.body).toMatchObject({ model: 'gpt-4o', stream: false, store: false, input: 'What is the capital of France?', tools: [{ type: 'web_search', search_context_size: 'low' }] });
  });

  it('stream: the provider events pass through; the final event carries billing and impact', async () => {
    const events = await rawStream(igw.url, igw.key, { model: 'oa-chat', input: 'x', tools: [{ type: 'web_search_preview' }] });
    expect(events[0]).toMatchObject({ type: 'response.created', response: { model: 'oa-chat', store: false } });
    const last = events[events.length - 1]!;
    expect(last).toMatchObject({ type: 'response.completed', response: { model: 'oa-chat', store: false, status: 'completed' } });
    expect(last.response.environment_impact.provider_id).toBe('oa');
    expect(last.response.billing_cost.credits).toBeDefined();
    expect(events.filter((event) => event.type === 'response.output_text.delta').map((event) => event.delta).join('')).toBe('The capital of France is Paris.');
    expect(upstream.requests[0]!.body).toMatchObject({ stream: true, store: false });

    const final = await igw.openai().responses.stream({ model: 'oa-chat', input: 'x', tools: [{ type: 'web_search_preview' }] }).finalResponse();
    expect(final.output[0]).toMatchObject({ type: 'message', content: [{ type: 'output_text', text: 'The capital of France is Paris.' }] });
  });

  it('stream: a recorded provider error mid-stream → error + response.failed', async () => {
    handler = () => ({ status: 200, rawSse: readRecorded('openai-responses/stream-error-insufficient-quota.chunks.jsonl').split('\n').filter((line) => line.trim() !== '').map((line) => `data: ${line}\n\n`).join('') });
    const events = await rawStream(igw.url, igw.key, { model: 'oa-chat', input: 'x', tools: [{ type: 'web_search' }] });
    expect(events.map((event) => event.type)).toEqual(['response.created', 'response.in_progress', 'error', 'response.failed']);
    expect(events.map((event) => event.sequence_number)).toEqual([0, 1, 2, 3]);
    expect(events[2]).toMatchObject({ code: 'INFERENCE_3105' });
    expect(events[3]!.response).toMatchObject({ status: 'failed', model: 'oa-chat', error: { code: 'INFERENCE_3105' } });
  });
});

describe('config: responses_api', () => {
  it('applies only to providers of kind openai', () => {
    expect(() => buildConfig({ providers: { a: { kind: 'anthropic', base_url: 'https://example.com', responses_api: true } } }, null, {})).toThrow(/responses_api/);
    expect(() => buildConfig({ providers: { a: { kind: 'openai', base_url: 'https://example.com', responses_api: true } } }, null, {})).not.toThrow();
  });
});
