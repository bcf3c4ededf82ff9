import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeHandler, type FakeUpstream } from '../helpers/fake-upstream.js';
import { anthropicUpstreamConfig, postJson, startTestGateway, upstreamConfig, type TestGateway } from '../helpers/gateway.js';

/** DESIGN §5 "Forward compatibility" on /v1/messages: translated, native and strict. */

const version = { 'anthropic-version': '2023-06-01' };
const tool = { name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } };
const completion = { id: 'c1', object: 'chat.completion', created: 1, model: 'real-model-1', choices: [{ index: 0, message: { role: 'assistant', content: '{"ok":true}' }, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } };

/** What Claude Code and the newest SDKs send beyond the spec's table (each declared in @anthropic-ai/sdk 1.12 or new). */
const newestShape = {
  model: 'claude-sonnet-4-5',
  max_tokens: 64,
  tools: [{ ...tool, eager_input_streaming: true, strict: true }],
  context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] },
  thinking: { type: 'enabled', budget_tokens: 1024 },
  a_field_from_next_year: { anything: 1 },
  output_config: { effort: 'high', format: { type: 'json_schema', schema: { type: 'object', properties: { ok: { type: 'boolean' } } } } },
  messages: [
    { role: 'user', content: 'What is the weather?' },
    { role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm', signature: 'sig' }, { type: 'text', text: 'Which city?' }] },
    { role: 'system', content: 'The user is in Paris.' },
    { role: 'user', content: [{ type: 'text', text: 'Mine.', brand_new_block_field: 'x' }] },
  ],
};

describe('/v1/messages forward compatibility, translated to an OpenAI-compatible provider', () => {
  let upstream: FakeUpstream;
  let igw: TestGateway;
  let handler: FakeHandler = () => ({ json: completion });

  beforeAll(async () => {
    upstream = await startFakeUpstream((request) => handler(request));
    igw = await startTestGateway(upstreamConfig(upstream.url, { message_tiers: { opus: 'up-chat', sonnet: 'up-chat', haiku: 'up-chat' } }));
  });
  afterAll(async () => {
    await igw.close();
    await upstream.close();
  });
  afterEach(() => {
    upstream.requests.length = 0;
    handler = () => ({ json: completion });
  });

  it('accepts the newest request shape (POST /v1/messages?beta=true); honours what it can, names what it drops', async () => {
    const response = await postJson(`${igw.url}/v1/messages?beta=true`, igw.key, newestShape, { ...version, 'anthropic-beta': 'context-management-2025-06-27,mid-conversation-system-2026-04-07' });
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ type: 'message', content: [{ type: 'text', text: '{"ok":true}' }] });
    const ignored = response.headers.get('igw-ignored-params')!.split(', ');
    expect(ignored.sort()).toEqual(
      ['a_field_from_next_year', 'context_management', 'thinking', 'tools[].eager_input_streaming', 'messages[].content[thinking]', 'messages[].content[].brand_new_block_field', 'output_config.effort'].sort(),
    );

    const sent = upstream.requests[0]!.body;
    // The mid-conversation system message stays where it was; the rest translates as usual.
    expect(sent.messages).toEqual([
      { role: 'user', content: 'What is the weather?' },
      { role: 'assistant', content: 'Which city?' },
      { role: 'system', content: 'The user is in Paris.' },
      { role: 'user', content: 'Mine.' },
    ]);
    expect(sent.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'output', schema: newestShape.output_config.format.schema, strict: true } });
    expect(sent.tools).toEqual([{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: tool.input_schema, strict: true } }]);
    // up-chat does not reason: the effort is named above instead of being sent.
    expect(sent).not.toHaveProperty('reasoning_effort');
    for (const field of ['a_field_from_next_year', 'context_management', 'thinking', 'output_config']) expect(sent).not.toHaveProperty(field);
    expect(upstream.requests[0]!.headers['anthropic-beta']).toBeUndefined();
  });

  it('streams with the same header', async () => {
    handler = () => ({
      sse: [
        JSON.stringify({ id: 's', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { role: 'assistant', content: 'hi' }, finish_reason: null }] }),
        JSON.stringify({ id: 's', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
      ],
    });
    const response = await fetch(`${igw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${igw.key}`, ...version },
      body: JSON.stringify({ ...newestShape, stream: true, output_config: undefined }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('igw-ignored-params')).toContain('context_management');
    expect(await response.text()).toContain('event: message_stop');
  });

  it('refuses by name what it cannot drop without changing the answer', async () => {
    // igw runs mcp_servers itself on a translated route, streamed too (messages-mcp.test.ts): a
    // server URL it may not reach is refused by name before any model call.
    const mcp = await postJson(`${igw.url}/v1/messages`, igw.key, { ...newestShape, stream: true, mcp_servers: [{ type: 'url', url: 'http://127.0.0.1:9/mcp', name: 'x' }] }, version);
    expect(mcp.status).toBe(400);
    expect(mcp.json.error).toMatchObject({ code: 'VALIDATION_4005', details: { field: 'mcp_servers[0].url' } });
    const serverTool = await postJson(`${igw.url}/v1/messages`, igw.key, { ...newestShape, tools: [tool, { type: 'web_search_20250305', name: 'web_search', max_uses: 3 }] }, version);
    expect(serverTool.status).toBe(400);
    expect(serverTool.json.error).toMatchObject({ code: 'VALIDATION_4005', details: { field: 'tools[1]' } });
    expect(serverTool.json.error.message).toContain('web_search_20250305');
    const document = { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'the spec' } };
    const withDocument = await postJson(`${igw.url}/v1/messages`, igw.key, { ...newestShape, messages: [{ role: 'user', content: [document, { type: 'text', text: 'Summarise.' }] }] }, version);
    expect(withDocument.status).toBe(400);
    expect(withDocument.json.error).toMatchObject({ code: 'VALIDATION_4005', details: { field: 'messages[0].content[0]' } });
    expect(upstream.requests).toHaveLength(0);
  });

  it('known fields keep their checks: a bad value inside a declared field is refused by name', async () => {
    const response = await postJson(`${igw.url}/v1/messages`, igw.key, { ...newestShape, output_config: { format: { type: 'json_schema' } } }, version);
    expect(response.status).toBe(400);
    expect(response.json.error).toMatchObject({ code: 'VALIDATION_4002', details: { field: 'output_config.format.schema' } });
  });

  it('count_tokens accepts the same shape and names what it did not count', async () => {
    const { max_tokens: _unused, ...countable } = newestShape;
    const response = await postJson(`${igw.url}/v1/messages/count_tokens?beta=true`, igw.key, countable, version);
    expect(response.status).toBe(200);
    expect(response.json.input_tokens).toBeGreaterThan(10);
    expect(response.headers.get('igw-ignored-params')).toContain('a_field_from_next_year');
  });

  it('names the dropped fields in the request log line', async () => {
    // Through the store, whichever holds the log (test matrix: JSONL files or the PostgreSQL table).
    const lines = await igw.gateway.app.store.requestLog.readSince(0);
    const first = lines.find((line) => line.endpoint === '/v1/messages' && line.status === 200);
    expect(first?.ignored_params).toContain('tools[].eager_input_streaming');
  });
});

describe('/v1/messages forward compatibility, native pass-through to an Anthropic provider', () => {
  let upstream: FakeUpstream;
  let igw: TestGateway;
  const answer = { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 3, output_tokens: 1 } };

  beforeAll(async () => {
    upstream = await startFakeUpstream(() => ({ json: answer }));
    igw = await startTestGateway(anthropicUpstreamConfig(upstream.url));
  });
  afterAll(async () => {
    await igw.close();
    await upstream.close();
  });

  it('forwards every field and the anthropic-beta header untouched; nothing is named as ignored', async () => {
    const beta = 'claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,mid-conversation-system-2026-04-07';
    const document = { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0xLjQ=' }, title: 'spec', citations: { enabled: true } };
    const body = {
      ...newestShape,
      mcp_servers: [{ type: 'url', url: 'https://mcp.example', name: 'x' }],
      tools: [...newestShape.tools, { type: 'web_search_20250305', name: 'web_search', max_uses: 3 }],
      messages: [...newestShape.messages.slice(0, -1), { role: 'user', content: [{ type: 'text', text: 'Read this.' }, document] }],
    };
    const response = await postJson(`${igw.url}/v1/messages?beta=true`, igw.key, body, { ...version, 'anthropic-beta': beta });
    expect(response.status).toBe(200);
    expect(response.headers.get('igw-ignored-params')).toBeNull();
    const sent = upstream.requests[0]!;
    expect(sent.headers['anthropic-beta']).toBe(beta);
    expect(sent.body).toEqual({ ...body, model: 'claude-sonnet-4-5' });
  });
});

describe('server.strict_params: true', () => {
  let igw: TestGateway;
  beforeAll(async () => {
    igw = await startTestGateway({ server: { strict_params: true } });
  });
  afterAll(async () => {
    await igw.close();
  });

  it('refuses unknown names again, declared ones still pass', async () => {
    const base = { model: 'local-echo', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] };
    const unknown = await postJson(`${igw.url}/v1/messages`, igw.key, { ...base, tools: [{ ...tool, brand_new: 1 }] }, version);
    expect(unknown.status).toBe(400);
    expect(unknown.json.error).toMatchObject({ code: 'VALIDATION_4005', details: { field: 'tools[0].brand_new' } });
    const declared = await postJson(`${igw.url}/v1/messages`, igw.key, { ...base, context_management: { edits: [] } }, version);
    expect(declared.status).toBe(200);
    expect(declared.headers.get('igw-ignored-params')).toBe('context_management');
  });
});
