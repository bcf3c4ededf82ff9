import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeHandler, type FakeUpstream } from '../helpers/fake-upstream.js';
import { postJson, startTestGateway, upstreamConfig, type TestGateway } from '../helpers/gateway.js';

function completion(message: Record<string, unknown>, finish = 'stop') {
  return {
    id: 'chatcmpl-up1',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'real-model-1',
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }],
    usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, prompt_tokens_details: { cached_tokens: 40 } },
  };
}
function chunk(delta: Record<string, unknown>, finish: string | null = null) {
  return JSON.stringify({ id: 'chatcmpl-s1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'real-model-1', choices: [{ index: 0, delta, finish_reason: finish }] });
}
const usageChunk = JSON.stringify({ id: 'chatcmpl-s1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'real-model-1', choices: [], usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 } });

/** Raw SSE of a /v1/responses stream: the events in order. */
async function streamEvents(url: string, key: string, body: unknown): Promise<{ status: number; events: Array<Record<string, any>>; names: string[] }> {
  const response = await fetch(`${url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify({ ...(body as object), stream: true }) });
  const text = await response.text();
  if (!response.headers.get('content-type')?.includes('text/event-stream')) return { status: response.status, events: [JSON.parse(text)], names: [] };
  const frames = text.split('\n\n').filter((frame) => frame.includes('data:'));
  const names = frames.map((frame) => /^event: (.*)$/m.exec(frame)?.[1] ?? '');
  const events = frames.map((frame) => JSON.parse(/^data: (.*)$/m.exec(frame)![1]!));
  return { status: response.status, events, names };
}

/** /v1/responses → an OpenAI-compatible upstream through the chat hub. */
describe('/v1/responses through an OpenAI-compatible provider', () => {
  let upstream: FakeUpstream;
  let igw: TestGateway;
  let handler: FakeHandler;
  const reset = () => {
    handler = () => ({ json: completion({ content: 'hello from upstream' }) });
  };
  reset();

  beforeAll(async () => {
    upstream = await startFakeUpstream((request) => handler(request));
    igw = await startTestGateway(upstreamConfig(upstream.url));
  });
  afterAll(async () => {
    await igw.close();
    await upstream.close();
  });
  afterEach(() => {
    upstream.requests.length = 0;
    reset();
  });

  it('create: the hub request upstream, usage with cached tokens, billing', async () => {
    const response = await igw.openai().responses.create({
      model: 'up-chat',
      instructions: 'Be brief.',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'Hi' }] }],
      max_output_tokens: 50,
      temperature: 0.2,
      reasoning: { effort: 'high' },
      tools: [{ type: 'function', name: 'f', parameters: { type: 'object', properties: {} }, strict: false }, { type: 'shell' }],
      store: true,
      metadata: { k: 'v' },
    });
    expect(response.output_text).toBe('hello from upstream');
    expect(response.usage).toEqual({ input_tokens: 100, input_tokens_details: { cached_tokens: 40 }, output_tokens: 20, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 120 });
    expect((response as unknown as { billing_cost: { credits: string } }).billing_cost.credits).not.toBe('0');
    const sent = upstream.requests[0]!.body;
    expect(sent).toMatchObject({ model: 'real-model-1', stream: false, max_tokens: 50, temperature: 0.2, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }] });
    expect(sent.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(['f', 'shell']);
    // Gateway-only and stateless fields never go upstream; non-reasoning models get no effort.
    for (const field of ['store', 'metadata', 'instructions', 'input', 'reasoning_effort', 'reasoning']) expect(sent).not.toHaveProperty(field);
  });

  it('images: data URIs reach the upstream as image_url parts; a bad image names the client\'s field', async () => {
    const png = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    await igw.openai().responses.create({ model: 'up-chat', input: [{ role: 'user', content: [{ type: 'input_text', text: 'what is it?' }, { type: 'input_image', image_url: png, detail: 'low' }] }] });
    expect(upstream.requests[0]!.body.messages[0].content[1]).toEqual({ type: 'image_url', image_url: { url: png, detail: 'low' } });
    const refused = await postJson(`${igw.url}/v1/responses`, igw.key, { model: 'up-chat', input: [{ role: 'user', content: [{ type: 'input_text', text: 'x' }, { type: 'input_image', image_url: 'ftp://example.com/a.png' }] }] });
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({ code: 'VALIDATION_4005', details: { field: 'input[0].content[1].image_url' } });
    expect(refused.json.error.message).toContain('input[0].content[1].image_url');
  });

  it('content filter → status failed with the error, output kept, billed', async () => {
    handler = () => ({ json: completion({ content: 'partial' }, 'content_filter') });
    const answer = await postJson(`${igw.url}/v1/responses`, igw.key, { model: 'up-chat', input: 'x' });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ status: 'failed', error: { code: 'INFERENCE_3208' }, output: [{ type: 'message', status: 'incomplete', content: [{ text: 'partial' }] }] });
    expect(answer.json.billing_cost).toBeDefined();
  });

  it('provider error before any output → the normal error envelope', async () => {
    handler = () => ({ status: 500, json: { error: { message: 'upstream broke', type: 'server_error' } } });
    const answer = await postJson(`${igw.url}/v1/responses`, igw.key, { model: 'up-chat', input: 'x' });
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.json.error.code).toMatch(/^INFERENCE_/);
    const streamed = await streamEvents(igw.url, igw.key, { model: 'up-chat', input: 'x' });
    expect(streamed.status).toBeGreaterThanOrEqual(400);
    expect(streamed.events[0]!.error.code).toMatch(/^INFERENCE_/);
  });

  it('stream: upstream chunks → response events with sequence numbers and names; usage and billing on response.completed', async () => {
    handler = () => ({ sse: [chunk({ role: 'assistant', content: '' }), chunk({ content: 'Hel' }), chunk({ content: 'lo' }), chunk({}, 'stop'), usageChunk] });
    const { events, names } = await streamEvents(igw.url, igw.key, { model: 'up-chat', input: 'x' });
    expect(names).toEqual(events.map((event) => event.type));
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_event, index) => index));
    expect(names).toEqual([
      'response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added',
      'response.output_text.delta', 'response.output_text.delta', 'response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed',
    ]);
    const completed = events[events.length - 1]!.response;
    expect(completed).toMatchObject({ status: 'completed', usage: { input_tokens: 10, output_tokens: 3, total_tokens: 13 }, output: [{ content: [{ text: 'Hello' }] }] });
    expect(completed.environment_impact.provider_id).toBe('up');
    expect(completed.billing_cost.credits).toBeDefined();
    expect(upstream.requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('stream: the provider fails after output started → error event, then response.failed with billing', async () => {
    handler = () => ({ destroy: true, sseBefore: [chunk({ content: 'Hel' })] });
    const { events } = await streamEvents(igw.url, igw.key, { model: 'up-chat', input: 'x' });
    const tail = events.slice(-2);
    expect(tail.map((event) => event.type)).toEqual(['error', 'response.failed']);
    expect(tail[0]!.code).toMatch(/^INFERENCE_/);
    expect(tail[1]!.response).toMatchObject({ status: 'failed', error: { code: tail[0]!.code } });
    expect(tail[1]!.response.billing_cost).toBeDefined();
  });

  it('stream: the official SDK raises the mid-stream error', async () => {
    handler = () => ({ destroy: true, sseBefore: [chunk({ content: 'Hel' })] });
    const stream = igw.openai().responses.stream({ model: 'up-chat', input: 'x' });
    await expect(stream.finalResponse()).rejects.toThrow();
  });
});
