import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeHandler, type FakeUpstream } from '../helpers/fake-upstream.js';
import { postJson, startTestGateway, upstreamConfig, type TestGateway } from '../helpers/gateway.js';

function completion(message: Record<string, unknown>, finish = 'stop') {
  return { id: 'chatcmpl-fs', object: 'chat.completion', created: 1, model: 'real-model-1', choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }], usage: { prompt_tokens: 50, completion_tokens: 10, total_tokens: 60 } };
}
function chunk(delta: Record<string, unknown>, finish: string | null = null) {
  return JSON.stringify({ id: 'chatcmpl-fs', object: 'chat.completion.chunk', created: 1, model: 'real-model-1', choices: [{ index: 0, delta, finish_reason: finish }] });
}

/**
 * file_search end to end: a store created and filled through the HTTP API, then /v1/responses
 * with the file_search tool, on local-echo (forced tool choice) and on a fake upstream model that
 * decides to call the tool.
 */
describe('/v1/responses file_search over the caller\'s vector stores', () => {
  let upstream: FakeUpstream;
  let igw: TestGateway;
  let vaultKey: string;
  let storeId: string;
  let handler: FakeHandler;
  const question = 'How many days do I have to return an item for a refund?';

  // The model asks for a search first, then answers from the tool result it was given.
  const searchingModel: FakeHandler = (request) => {
    const messages = request.body.messages as Array<{ role: string; content: string }>;
    const toolResult = messages.find((message) => message.role === 'tool');
    if (request.body.stream === true) {
      return toolResult === undefined
        ? { sse: [chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_fs1', type: 'function', function: { name: 'file_search', arguments: '' } }] }), chunk({ tool_calls: [{ index: 0, function: { arguments: '{"query":"return policy refund"}' } }] }), chunk({}, 'tool_calls')] }
        : { sse: [chunk({ role: 'assistant', content: 'Within 30 days.' }), chunk({}, 'stop')] };
    }
    return toolResult === undefined
      ? { json: completion({ content: null, tool_calls: [{ id: 'call_fs1', type: 'function', function: { name: 'file_search', arguments: '{"query":"return policy refund"}' } }] }, 'tool_calls') }
      : { json: completion({ content: 'Within 30 days.' }) };
  };

  beforeAll(async () => {
    upstream = await startFakeUpstream((request) => handler(request));
    igw = await startTestGateway(upstreamConfig(upstream.url));
    vaultKey = await igw.newKey({ name: 'vault', vault: true });
    const client = igw.openai(vaultKey);
    const store = await client.vectorStores.create({ name: 'kb' });
    storeId = store.id;
    const texts = {
      'returns.md': 'Our return policy: items can be returned within 30 days of delivery for a full refund.',
      'shipping.md': 'Shipping takes three to five business days. Express shipping arrives the next day.',
      'warranty.md': 'The warranty covers manufacturing defects for two years from the purchase date.',
    };
    for (const [name, text] of Object.entries(texts)) {
      const added = await postJson(`${igw.url}/v1/vector_stores/${storeId}/sources/text`, vaultKey, { name, text });
      expect(added.status).toBe(200);
    }
    await igw.gateway.app.vectorStores.idle();
  });
  afterAll(async () => {
    await igw.close();
    await upstream.close();
  });
  afterEach(() => {
    upstream.requests.length = 0;
    handler = searchingModel;
  });
  handler = searchingModel;

  const fileSearch = (extra: Record<string, unknown> = {}) => ({ type: 'file_search' as const, vector_store_ids: [storeId], ...extra });

  it('local-echo: a forced search, then the answer; results reported when included; stream equals non-stream', async () => {
    const client = igw.openai(vaultKey);
    const request = { model: 'local-echo', input: question, tools: [fileSearch({ max_num_results: 2 })], tool_choice: { type: 'file_search' as const }, include: ['file_search_call.results' as const] };
    const response = await client.responses.create(request);
    expect(response.status).toBe('completed');
    expect(response.output.map((item) => item.type)).toEqual(['file_search_call', 'message']);
    const call = response.output[0]!;
    if (call.type !== 'file_search_call') throw new Error('expected a file_search_call');
    expect(call).toMatchObject({ status: 'completed', queries: [question] });
    expect(call.results).toHaveLength(2);
    expect(call.results![0]).toMatchObject({ filename: 'returns.md', text: expect.stringContaining('30 days') });
    expect(response.output_text).toBe(question);

    const final = await client.responses.stream(request).finalResponse();
    const strip = (value: unknown) => JSON.parse(JSON.stringify(value).split((value as { id: string }).id.replace(/^resp_/, '')).join('ID'), (key, inner) => (['created_at', 'id', 'output_text', 'output_parsed', 'parsed', 'parsed_arguments'].includes(key) ? undefined : inner));
    expect(strip(final)).toEqual(strip(response));
  });

  it('results are left out of the item unless include asks for them', async () => {
    const response = await igw.openai(vaultKey).responses.create({ model: 'local-echo', input: question, tools: [fileSearch()], tool_choice: 'required' });
    expect(response.output[0]).toMatchObject({ type: 'file_search_call', results: null });
  });

  it('a model that calls the tool gets the passages and answers from them', async () => {
    // The tool's filters reach the search: one that matches nothing finds nothing, and the model is told so.
    const filtered = await igw.openai(vaultKey).responses.create({ model: 'up-chat', input: question, tools: [fileSearch({ filters: { type: 'eq', key: 'topic', value: 'none' } })], include: ['file_search_call.results'] });
    expect(filtered.output[0]).toMatchObject({ type: 'file_search_call', queries: ['return policy refund'], results: [] });
    expect((upstream.requests[1]!.body.messages as Array<{ content: string }>).at(-1)!.content).toContain('found nothing');
    upstream.requests.length = 0;

    const answer = await igw.openai(vaultKey).responses.create({ model: 'up-chat', input: question, tools: [fileSearch()], include: ['file_search_call.results'] });
    expect(answer.output.map((item) => item.type)).toEqual(['file_search_call', 'message']);
    expect(answer.output_text).toBe('Within 30 days.');
    expect(upstream.requests).toHaveLength(2);
    const second = upstream.requests[1]!.body.messages as Array<{ role: string; content: string; tool_calls?: unknown[] }>;
    expect(second.at(-2)).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'call_fs1', function: { name: 'file_search' } }] });
    expect(second.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_fs1', content: expect.stringContaining('returns.md') });
    expect(second.at(-1)!.content).toContain('within 30 days');
    // Both model turns are billed: the usage is their sum.
    expect(answer.usage).toMatchObject({ input_tokens: 100, output_tokens: 20 });
  });

  it('stream: file_search_call events between the two model turns, one response', async () => {
    const response = await fetch(`${igw.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${vaultKey}` },
      body: JSON.stringify({ model: 'up-chat', input: question, tools: [fileSearch()], stream: true }),
    });
    const events = (await response.text()).split('\n\n').filter((frame) => frame.includes('data:')).map((frame) => JSON.parse(/^data: (.*)$/m.exec(frame)![1]!));
    expect(events.map((event) => event.type)).toEqual([
      'response.created', 'response.in_progress',
      'response.output_item.added', 'response.file_search_call.in_progress', 'response.file_search_call.searching', 'response.file_search_call.completed', 'response.output_item.done',
      'response.output_item.added', 'response.content_part.added', 'response.output_text.delta', 'response.output_text.done', 'response.content_part.done', 'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_event, index) => index));
    expect(events.at(-1).response.output.map((item: { type: string }) => item.type)).toEqual(['file_search_call', 'message']);
  });

  it('a search that fails after the model ran → the answer is failed (billed), in both forms', async () => {
    const client = igw.openai(vaultKey);
    for (const stream of [false, true]) {
      const doomed = await client.vectorStores.create({ name: 'doomed' });
      // The store disappears while the model is deciding to search.
      handler = async (request) => {
        if (!(request.body.messages as Array<{ role: string }>).some((message) => message.role === 'tool')) {
          expect((await fetch(`${igw.url}/v1/vector_stores/${doomed.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${vaultKey}` } })).status).toBe(200);
        }
        return searchingModel(request);
      };
      const body = { model: 'up-chat', input: question, tools: [{ type: 'file_search', vector_store_ids: [doomed.id] }], stream };
      const response = await fetch(`${igw.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${vaultKey}` }, body: JSON.stringify(body) });
      expect(response.status).toBe(200);
      const text = await response.text();
      const final = stream ? JSON.parse(/^data: (.*)$/m.exec(text.trim().split('\n\n').at(-1)!)![1]!).response : JSON.parse(text);
      expect(final).toMatchObject({ status: 'failed', error: { code: expect.any(String) } });
      expect(final.output[0]).toMatchObject({ type: 'file_search_call' });
      expect(final.billing_cost).toBeDefined();
      expect(upstream.requests).toHaveLength(1);
      upstream.requests.length = 0;
    }
  });

  it('an unknown store → 404 before any model call; a key without vault access → 403', async () => {
    const unknown = await postJson(`${igw.url}/v1/responses`, vaultKey, { model: 'up-chat', input: 'x', tools: [{ type: 'file_search', vector_store_ids: ['vs_nope'] }] });
    expect(unknown.status).toBe(404);
    const noVault = await postJson(`${igw.url}/v1/responses`, igw.key, { model: 'up-chat', input: 'x', tools: [fileSearch()] });
    expect(noVault.status).toBe(403);
    expect(noVault.json.error.code).toBe('AUTH_1016');
    const badFilter = await postJson(`${igw.url}/v1/responses`, vaultKey, { model: 'up-chat', input: 'x', tools: [fileSearch({ filters: { type: 'eq', key: 'k' } })] });
    expect(badFilter.status).toBe(400);
    expect(upstream.requests).toHaveLength(0);
  });
});
