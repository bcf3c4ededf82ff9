import Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeHandler, type FakeUpstream } from '../helpers/fake-upstream.js';
import { anthropicUpstreamConfig, postJson, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { listRecorded, payloadsFromChunksFile, readRecorded, readRecordedJson } from '../helpers/recorded.js';

function message(content: unknown[], stopReason = 'end_turn', usage: Record<string, number> = { input_tokens: 20, output_tokens: 10, cache_read_input_tokens: 5, cache_creation_input_tokens: 0 }) {
  return { id: 'msg_up1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content, stop_reason: stopReason, stop_sequence: null, usage };
}

function anthropicSse(events: unknown[]): string {
  return events.map((event) => `event: ${(event as { type: string }).type}\ndata: ${JSON.stringify(event)}\n\n`).join('');
}

const start = { type: 'message_start', message: { id: 'msg_st1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 1 } } };

const weatherTool = { name: 'get_weather', description: 'Weather for a city', input_schema: { type: 'object' as const, properties: { city: { type: 'string' }, cache_control: { type: 'string' } } } };

/** The official Anthropic SDK against igw → an Anthropic upstream: native pass-through. */
describe('/v1/messages through an Anthropic provider (native pass-through)', () => {
  let upstream: FakeUpstream;
  let igw: TestGateway;
  let client: Anthropic;
  let handler: FakeHandler = () => ({ json: message([{ type: 'text', text: 'hello from claude' }]) });

  beforeAll(async () => {
    upstream = await startFakeUpstream((request) => handler(request));
    igw = await startTestGateway(anthropicUpstreamConfig(upstream.url));
    client = igw.anthropic();
  });
  afterAll(async () => {
    await igw.close();
    await upstream.close();
  });
  afterEach(() => {
    upstream.requests.length = 0;
    handler = () => ({ json: message([{ type: 'text', text: 'hello from claude' }]) });
  });

  it('create: body passed through with cache_control dropped; model echoed; environment_impact and billing_cost added', async () => {
    const answer = await client.messages.create({
      model: 'my-Opus-model',
      max_tokens: 64,
      system: [{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } }],
      tools: [{ ...weatherTool, cache_control: { type: 'ephemeral' } }],
      metadata: { user_id: 'u1' },
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: { type: 'ephemeral' } }] }],
    });
    expect(answer).toMatchObject({ id: 'msg_up1', model: 'my-Opus-model', content: [{ type: 'text', text: 'hello from claude' }], usage: { input_tokens: 20, output_tokens: 10, cache_read_input_tokens: 5 } });
    const extra = answer as unknown as { environment_impact: Record<string, unknown>; billing_cost: Record<string, unknown> };
    expect(extra.environment_impact).toMatchObject({ provider_id: 'claude' });
    expect(Number(extra.billing_cost['credits'] ?? 0) + Number(extra.billing_cost['energy'] ?? 0)).toBeGreaterThan(0);
    const sent = upstream.requests[0]!;
    expect(sent.path).toBe('/v1/messages');
    expect(sent.headers['x-api-key']).toBe('sk-ant-upstream-secret');
    expect(sent.body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      system: [{ type: 'text', text: 'sys' }],
      tools: [weatherTool],
      metadata: { user_id: 'u1' },
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    });
  });

  it('tools round trip passes tool_use and tool_result blocks through', async () => {
    handler = () => ({ json: message([{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }], 'tool_use') });
    const first = await client.messages.create({ model: 'claude-chat', max_tokens: 64, tools: [weatherTool], messages: [{ role: 'user', content: 'Weather?' }] });
    expect(first.stop_reason).toBe('tool_use');
    handler = () => ({ json: message([{ type: 'text', text: 'Sunny.' }]) });
    const second = await client.messages.create({
      model: 'claude-chat',
      max_tokens: 64,
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: '18C', cache_control: { type: 'ephemeral' } }] }] },
      ],
    });
    expect(second.content).toEqual([{ type: 'text', text: 'Sunny.' }]);
    expect(upstream.requests[1]!.body.messages[2]).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: '18C' }] }] });
  });

  it('stream: events passed through (model echoed), SDK finalMessage, no billing fields on the wire', async () => {
    handler = () => ({
      rawSse: anthropicSse([
        start,
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'ping' },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'lo' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 3 } },
        { type: 'message_stop' },
      ]),
      randomChunks: true,
      seed: 3,
    });
    const stream = client.messages.stream({ model: 'claude-chat', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] });
    let text = '';
    stream.on('text', (delta) => (text += delta));
    const final = await stream.finalMessage();
    expect(text).toBe('Hello');
    expect(final).toMatchObject({ model: 'claude-chat', content: [{ type: 'text', text: 'Hello' }], stop_reason: 'end_turn', usage: { input_tokens: 10, output_tokens: 3 } });
    expect(upstream.requests[0]!.body).toMatchObject({ model: 'claude-sonnet-4-5', stream: true });

    const raw = await fetch(`${igw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': igw.key, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'claude-chat', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    const wire = await raw.text();
    expect(wire).toContain('event: message_stop');
    expect(wire).not.toContain('billing_cost');
  });

  it('stream: an upstream error event or a cut-off stream → an error event', async () => {
    handler = () => ({ rawSse: anthropicSse([start, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }]) });
    const first = await postJson(`${igw.url}/v1/messages`, igw.key, { model: 'claude-chat', max_tokens: 5, stream: true, messages: [{ role: 'user', content: 'x' }] }, { 'compat-version': '1' });
    expect(String(first.json)).toMatch(/event: error\ndata: \{"type":"error","error":\{"type":"/);
    handler = () => ({ rawSse: anthropicSse([start, { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }]) });
    const second = await postJson(`${igw.url}/v1/messages`, igw.key, { model: 'claude-chat', max_tokens: 5, stream: true, messages: [{ role: 'user', content: 'x' }] }, { 'compat-version': '1' });
    expect(String(second.json).trimEnd().split('\n\n').at(-1)).toMatch(/^event: error/);
  });

  it('count_tokens works without calling the upstream', async () => {
    const counted = await client.messages.countTokens({ model: 'claude-chat', messages: [{ role: 'user', content: 'How many tokens is this?' }] });
    expect(counted.input_tokens).toBeGreaterThan(5);
    expect(upstream.requests).toHaveLength(0);
  });

  describe('replay of recorded Anthropic answers through the native path', () => {
    for (const file of listRecorded('anthropic-messages', '.json')) {
      it(file, async () => {
        const recorded = readRecordedJson<{ content: unknown[]; stop_reason: string; usage: Record<string, unknown> }>(file);
        handler = () => ({ json: recorded });
        const answer = await client.messages.create({ model: 'claude-sonnet-x', max_tokens: 64, messages: [{ role: 'user', content: 'replay' }] });
        expect(answer.content).toEqual(recorded.content);
        expect(answer.stop_reason).toBe(recorded.stop_reason);
        expect(answer.model).toBe('claude-sonnet-x');
        expect(answer.usage).toEqual(recorded.usage);
      });
    }
    const streams = [...listRecorded('anthropic-messages', '.sse'), ...listRecorded('anthropic-messages', '.chunks.jsonl')];
    for (const file of streams) {
      it(file, async () => {
        const rawSse = file.endsWith('.sse')
          ? readRecorded(file)
          : payloadsFromChunksFile(file)
              .map((line) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`)
              .join('');
        handler = () => ({ rawSse, randomChunks: true, seed: 7 });
        const final = await client.messages.stream({ model: 'claude-haiku-x', max_tokens: 64, messages: [{ role: 'user', content: 'replay' }] }).finalMessage();
        expect(final.model).toBe('claude-haiku-x');
        expect(final.stop_reason).not.toBeNull();
        expect(final.content.length).toBeGreaterThan(0);
      });
    }
  });
});
