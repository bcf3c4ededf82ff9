import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startTestGateway, upstreamConfig, type TestGateway } from '../helpers/gateway.js';
import { startMcpHttpServer, type TestMcpHttpServer } from '../helpers/mcp/http-server.js';
import { scriptedChatModel, type ScriptedCall } from '../helpers/scripted-chat-upstream.js';

/**
 * The Messages API's `mcp_servers` (beta mcp-client-2025-04-04, issue 20 item 3) on a translated
 * route, through the official @anthropic-ai/sdk: igw lists a real MCP server (official SDK,
 * Streamable HTTP), offers its tools to a scripted OpenAI-wire model, runs the model's call and
 * reports it as mcp_tool_use / mcp_tool_result blocks before the model's answer.
 */
let upstream: FakeUpstream;
let notes: TestMcpHttpServer;
let gw: TestGateway;
let key: string;
let script: (toolNames: string[]) => ScriptedCall | undefined = () => undefined;

beforeAll(async () => {
  upstream = await startFakeUpstream(scriptedChatModel((names) => script(names)));
  notes = await startMcpHttpServer();
  gw = await startTestGateway(upstreamConfig(upstream.url, { server: { allow_private_urls: true } }));
  key = await gw.newKey({ name: 'messages-mcp' });
}, 30_000);

afterAll(async () => {
  await gw?.close();
  await upstream?.close();
  await notes?.close();
});

beforeEach(() => {
  upstream.requests.length = 0;
  script = () => undefined;
});

const betas: Anthropic.Beta.AnthropicBeta[] = ['mcp-client-2025-04-04'];

describe('/v1/messages mcp_servers on a translated route', () => {
  it('runs the model’s call on the server and reports mcp_tool_use / mcp_tool_result blocks, then the answer', async () => {
    script = (names) => (names.includes('notes__whoami') ? { name: 'notes__whoami', arguments: {} } : undefined);
    const message = await gw.anthropic(key).beta.messages.create({
      model: 'up-chat',
      max_tokens: 200,
      betas,
      messages: [{ role: 'user', content: 'Who am I?' }],
      mcp_servers: [{ type: 'url', url: notes.url, name: 'notes', authorization_token: 'notes-token', tool_configuration: { allowed_tools: ['whoami'] } }],
    });
    expect(message.content.map((block) => block.type)).toEqual(['mcp_tool_use', 'mcp_tool_result', 'text']);
    expect(message.content[0]).toMatchObject({ type: 'mcp_tool_use', name: 'whoami', server_name: 'notes', input: {} });
    expect(message.content[1]).toMatchObject({ type: 'mcp_tool_result', is_error: false, content: [{ type: 'text', text: 'Bearer notes-token' }] });
    expect(message.content[2]).toMatchObject({ type: 'text', text: 'tool said: Bearer notes-token' });
    expect(message.stop_reason).toBe('end_turn');
    // Only the allowed tool was offered; usage covers both model turns.
    expect(((upstream.requests[0]?.body as { tools: Array<{ function: { name: string } }> }).tools ?? []).map((tool) => tool.function.name)).toEqual(['notes__whoami']);
    expect(message.usage.input_tokens).toBe(24);
    const entries = await gw.gateway.app.store.requestLog.readSince(0);
    expect(entries.some((entry) => entry.model === 'tool:notes__whoami' && entry.endpoint === '/v1/messages')).toBe(true);
  });

  it('the blocks sent back in the next turn are translated for the model, not refused', async () => {
    script = (names) => (names.includes('notes__lookup') ? { name: 'notes__lookup', arguments: { word: 'kiwi' } } : undefined);
    const client = gw.anthropic(key);
    const mcpServers: Anthropic.Beta.BetaRequestMCPServerURLDefinition[] = [{ type: 'url', url: notes.url, name: 'notes' }];
    const first = await client.beta.messages.create({ model: 'up-chat', max_tokens: 200, betas, messages: [{ role: 'user', content: 'kiwi' }], mcp_servers: mcpServers });
    expect(first.content.map((block) => block.type)).toEqual(['mcp_tool_use', 'mcp_tool_result', 'text']);
    script = () => undefined;
    const next = await client.beta.messages.create({
      model: 'up-chat',
      max_tokens: 200,
      betas,
      messages: [{ role: 'user', content: 'kiwi' }, { role: 'assistant', content: first.content as Anthropic.Beta.BetaContentBlockParam[] }, { role: 'user', content: 'thanks' }],
      mcp_servers: mcpServers,
    });
    expect(next.content).toEqual([{ type: 'text', text: 'thanks' }]);
    const sent = upstream.requests[upstream.requests.length - 1]!.body as { messages: Array<{ role: string; content: unknown; tool_calls?: Array<{ function: { name: string } }> }> };
    expect(sent.messages.map((entry) => entry.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    expect(sent.messages[1]!.tool_calls![0]!.function.name).toBe('notes__lookup');
    expect(sent.messages[2]!.content).toBe('kiwi: a note about kiwi');
  });

  it('a tool error is an mcp_tool_result with is_error; kit.mcp is required', async () => {
    script = () => ({ name: 'notes__lookup', arguments: {} });
    const message = await gw.anthropic(key).beta.messages.create({ model: 'up-chat', max_tokens: 200, betas, messages: [{ role: 'user', content: 'x' }], mcp_servers: [{ type: 'url', url: notes.url, name: 'notes' }] });
    expect(message.content[1]).toMatchObject({ type: 'mcp_tool_result', is_error: true });
    expect(message.content[2]).toMatchObject({ type: 'text', text: expect.stringContaining('tool said: Error:') });

    const chatOnly = await gw.newKey({ name: 'chat-only', scopes: ['inference.chat'] });
    const refused = await gw
      .anthropic(chatOnly)
      .beta.messages.create({ model: 'up-chat', max_tokens: 200, betas, messages: [{ role: 'user', content: 'x' }], mcp_servers: [{ type: 'url', url: notes.url, name: 'notes' }] })
      .catch((thrown: unknown) => thrown);
    expect((refused as InstanceType<typeof Anthropic.APIError>).status).toBe(403);
    expect((refused as Error).message).toContain('kit.mcp');
  });
});

describe('/v1/messages mcp_servers streamed on a translated route', () => {
  it('streams the mcp_tool_use / mcp_tool_result blocks, then the answer, as one message', async () => {
    script = (names) => (names.includes('notes__whoami') ? { name: 'notes__whoami', arguments: {} } : undefined);
    const stream = gw.anthropic(key).beta.messages.stream({
      model: 'up-chat',
      max_tokens: 200,
      betas,
      messages: [{ role: 'user', content: 'Who am I?' }],
      mcp_servers: [{ type: 'url', url: notes.url, name: 'notes', authorization_token: 'notes-token', tool_configuration: { allowed_tools: ['whoami'] } }],
    });
    const events: Anthropic.Beta.BetaRawMessageStreamEvent[] = [];
    stream.on('streamEvent', (event) => events.push(event));
    const message = await stream.finalMessage();
    expect(message.content.map((block) => block.type)).toEqual(['mcp_tool_use', 'mcp_tool_result', 'text']);
    expect(message.content[0]).toMatchObject({ type: 'mcp_tool_use', name: 'whoami', server_name: 'notes', input: {} });
    expect(message.content[1]).toMatchObject({ type: 'mcp_tool_result', is_error: false, content: [{ type: 'text', text: 'Bearer notes-token' }] });
    expect(message.content[2]).toMatchObject({ type: 'text', text: 'tool said: Bearer notes-token' });
    expect(message.stop_reason).toBe('end_turn');
    // One message over both turns: one start and stop, blocks indexed in order, usage summed once.
    expect(events.filter((event) => event.type === 'message_start')).toHaveLength(1);
    expect(events.filter((event) => event.type === 'message_stop')).toHaveLength(1);
    expect(events.filter((event) => event.type === 'message_delta')).toHaveLength(1);
    expect(events.flatMap((event) => (event.type === 'content_block_start' ? [[event.index, event.content_block.type]] : []))).toEqual([
      [0, 'mcp_tool_use'],
      [1, 'mcp_tool_result'],
      [2, 'text'],
    ]);
    expect(message.usage.input_tokens).toBe(24);
    expect(message.usage.output_tokens).toBe(10);
    expect(upstream.requests.map((request) => (request.body as { stream?: boolean }).stream)).toEqual([true, true]);
    const entries = await gw.gateway.app.store.requestLog.readSince(0);
    expect(entries.some((entry) => entry.model === 'tool:notes__whoami' && entry.endpoint === '/v1/messages')).toBe(true);
    const served = entries.filter((entry) => entry.endpoint === '/v1/messages' && entry.model === 'up-chat' && entry.stream === true);
    expect(served.at(-1)).toMatchObject({ input_tokens: 24, output_tokens: 10 });
  });

  it('a failing tool streams as an mcp_tool_result with is_error and the model goes on; kit.mcp is required', async () => {
    script = () => ({ name: 'notes__lookup', arguments: {} });
    const message = await gw
      .anthropic(key)
      .beta.messages.stream({ model: 'up-chat', max_tokens: 200, betas, messages: [{ role: 'user', content: 'x' }], mcp_servers: [{ type: 'url', url: notes.url, name: 'notes' }] })
      .finalMessage();
    expect(message.content.map((block) => block.type)).toEqual(['mcp_tool_use', 'mcp_tool_result', 'text']);
    expect(message.content[1]).toMatchObject({ type: 'mcp_tool_result', is_error: true });
    expect(message.content[2]).toMatchObject({ type: 'text', text: expect.stringContaining('tool said: Error:') });

    const chatOnly = await gw.newKey({ name: 'chat-only-stream', scopes: ['inference.chat'] });
    const refused = await gw
      .anthropic(chatOnly)
      .beta.messages.stream({ model: 'up-chat', max_tokens: 200, betas, messages: [{ role: 'user', content: 'x' }], mcp_servers: [{ type: 'url', url: notes.url, name: 'notes' }] })
      .finalMessage()
      .catch((thrown: unknown) => thrown);
    expect((refused as InstanceType<typeof Anthropic.APIError>).status).toBe(403);
    expect((refused as Error).message).toContain('kit.mcp');
  });
});
