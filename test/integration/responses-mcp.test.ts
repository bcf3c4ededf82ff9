import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import type { ResponseInputItem, Tool } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startTestGateway, upstreamConfig, type TestGateway } from '../helpers/gateway.js';
import { startMcpHttpServer, type TestMcpHttpServer } from '../helpers/mcp/http-server.js';
import { scriptedChatModel, type ScriptedCall } from '../helpers/scripted-chat-upstream.js';

/**
 * The Responses `mcp` tool (issue 20 items 3 and 5) through the official openai SDK: real MCP
 * servers written with the official MCP SDK (a stdio one igw starts as a configured server, a
 * Streamable HTTP one reached by server_url), a scripted upstream model that calls the tools it is
 * offered and answers `tool said: <result>` once it has a tool result.
 */
const stdioServer = fileURLToPath(new URL('../helpers/mcp/stdio-server.mjs', import.meta.url));

let upstream: FakeUpstream;
let notes: TestMcpHttpServer;
let garbage: FakeUpstream;
let gw: TestGateway;
let key: string;
let client: OpenAI;
/** What the scripted model calls next, given the functions it is offered. */
let script: (toolNames: string[]) => ScriptedCall | undefined = () => undefined;

beforeAll(async () => {
  upstream = await startFakeUpstream(scriptedChatModel((names) => script(names)));
  notes = await startMcpHttpServer();
  garbage = await startFakeUpstream(() => ({ status: 200, text: 'this is not an MCP server', headers: { 'content-type': 'application/json' } }));
  gw = await startTestGateway(
    upstreamConfig(upstream.url, {
      server: { allow_private_urls: true },
      mcp_servers: { calc: { command: process.execPath, args: [stdioServer], allowed_tools: ['add', 'divide', 'crash', 'hang', 'pid'], timeout_ms: 3000 } },
    }),
  );
  key = await gw.newKey({ name: 'mcp' });
  client = gw.openai(key);
}, 30_000);

afterAll(async () => {
  await gw?.close();
  await upstream?.close();
  await notes?.close();
  await garbage?.close();
});

beforeEach(() => {
  upstream.requests.length = 0;
  script = () => undefined;
});

const calc = (extra: Partial<Tool.Mcp> = {}): Tool.Mcp => ({ type: 'mcp', server_label: 'calc', require_approval: 'never', ...extra });
const offeredTools = (request: number) => ((upstream.requests[request]?.body as { tools?: Array<{ function: { name: string } }> }).tools ?? []).map((tool) => tool.function.name);

describe('/v1/responses with an mcp tool', () => {
  it('lists a configured server, runs the model’s call on it and continues the answer with the result', async () => {
    script = (names) => (names.includes('calc__add') ? { name: 'calc__add', arguments: { a: 2, b: 3 } } : undefined);
    const response = await client.responses.create({ model: 'up-chat', input: 'What is 2 + 3?', tools: [calc()] });
    expect(response.status).toBe('completed');
    expect(response.output.map((item) => item.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    const [listed, called] = response.output;
    if (listed?.type !== 'mcp_list_tools' || called?.type !== 'mcp_call') throw new Error('unexpected items');
    expect(listed.server_label).toBe('calc');
    expect(listed.tools.map((tool) => tool.name).sort()).toEqual(['add', 'crash', 'divide', 'hang', 'pid']);
    expect(listed.tools.find((tool) => tool.name === 'add')?.input_schema).toMatchObject({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } });
    expect(called).toMatchObject({ server_label: 'calc', name: 'add', arguments: '{"a":2,"b":3}', output: '5', error: null, status: 'completed' });
    expect(response.output_text).toBe('tool said: 5');
    // The model saw the server's tools as functions, then its call and the result.
    expect(offeredTools(0)).toEqual(expect.arrayContaining(['calc__add', 'calc__divide']));
    expect(upstream.requests).toHaveLength(2);
    // Each tool call is a request-log line of its own, as /v1/mcp logs them.
    const entries = await gw.gateway.app.store.requestLog.readSince(0);
    expect(entries.some((entry) => entry.model === 'tool:calc__add' && entry.endpoint === '/v1/responses' && entry.status === 200)).toBe(true);
  });

  it('reaches a server by server_url with the client’s authorization; allowed_tools limits what the model is offered', async () => {
    script = (names) => (names.includes('notes__whoami') ? { name: 'notes__whoami', arguments: {} } : undefined);
    const response = await client.responses.create({
      model: 'up-chat',
      input: 'Who am I?',
      tools: [{ type: 'mcp', server_label: 'notes', server_url: notes.url, authorization: 'notes-token', allowed_tools: { tool_names: ['whoami'] }, require_approval: 'never' }],
    });
    const listed = response.output[0];
    if (listed?.type !== 'mcp_list_tools') throw new Error('expected a listing');
    expect(listed.tools.map((tool) => tool.name)).toEqual(['whoami']);
    expect(offeredTools(0)).toEqual(['notes__whoami']);
    expect(response.output[1]).toMatchObject({ type: 'mcp_call', name: 'whoami', output: 'Bearer notes-token' });
    expect(response.output_text).toBe('tool said: Bearer notes-token');
  });

  it('streams the listing, the call and the answer with OpenAI’s events (SDK stream helper); the final response matches', async () => {
    script = (names) => (names.includes('calc__add') ? { name: 'calc__add', arguments: { a: 20, b: 22 } } : undefined);
    const stream = client.responses.stream({ model: 'up-chat', input: 'What is 20 + 22?', tools: [calc({ allowed_tools: ['add'] })] });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const final = await stream.finalResponse();
    expect(final.status).toBe('completed');
    expect(final.output.map((item) => item.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    expect(final.output[1]).toMatchObject({ type: 'mcp_call', name: 'add', output: '42', status: 'completed' });
    expect(final.output_text).toBe('tool said: 42');
    const order = ['response.created', 'response.mcp_list_tools.in_progress', 'response.mcp_list_tools.completed', 'response.mcp_call_arguments.done', 'response.mcp_call.in_progress', 'response.mcp_call.completed', 'response.output_text.delta', 'response.completed'];
    const positions = order.map((type) => types.indexOf(type));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(types.filter((type) => type === 'response.output_item.done')).toHaveLength(3);
  });

  it('require_approval: the answer ends with an mcp_approval_request; an approval in the next request runs the call', async () => {
    script = (names) => (names.includes('calc__add') ? { name: 'calc__add', arguments: { a: 1, b: 1 } } : undefined);
    const tools = [calc({ require_approval: 'always' })];
    const first = await client.responses.create({ model: 'up-chat', input: 'What is 1 + 1?', tools });
    expect(first.output.map((item) => item.type)).toEqual(['mcp_list_tools', 'mcp_approval_request']);
    const request = first.output[1];
    if (request?.type !== 'mcp_approval_request') throw new Error('expected an approval request');
    expect(request).toMatchObject({ server_label: 'calc', name: 'add', arguments: '{"a":1,"b":1}' });
    expect(upstream.requests).toHaveLength(1);

    // No previous_response_id: the client sends the items back with its answer.
    const replay = first.output as unknown as ResponseInputItem[];
    const approved = await client.responses.create({
      model: 'up-chat',
      input: [{ role: 'user', content: 'What is 1 + 1?' }, ...replay, { type: 'mcp_approval_response', approval_request_id: request.id, approve: true }],
      tools,
    });
    expect(approved.output.map((item) => item.type)).toEqual(['mcp_call', 'message']);
    expect(approved.output[0]).toMatchObject({ type: 'mcp_call', name: 'add', output: '2', approval_request_id: request.id });
    expect(approved.output_text).toBe('tool said: 2');

    const denied = await client.responses.create({
      model: 'up-chat',
      input: [{ role: 'user', content: 'What is 1 + 1?' }, ...replay, { type: 'mcp_approval_response', approval_request_id: request.id, approve: false }],
      tools,
    });
    expect(denied.output.map((item) => item.type)).toEqual(['message']);
    expect(denied.output_text).toContain('did not approve');
  });

  it('streamed: an approval request ends the stream; the approved call streams as an mcp_call at the start of the next answer', async () => {
    script = (names) => (names.includes('calc__add') ? { name: 'calc__add', arguments: { a: 3, b: 4 } } : undefined);
    const tools = [calc({ require_approval: 'always', allowed_tools: ['add'] })];
    const asking = client.responses.stream({ model: 'up-chat', input: '3 + 4?', tools });
    const askedTypes: string[] = [];
    for await (const event of asking) askedTypes.push(event.type);
    const asked = await asking.finalResponse();
    expect(asked.output.map((item) => item.type)).toEqual(['mcp_list_tools', 'mcp_approval_request']);
    expect(askedTypes).not.toContain('response.mcp_call.in_progress');
    const request = asked.output[1]!;
    if (request.type !== 'mcp_approval_request') throw new Error('expected an approval request');
    const running = client.responses.stream({
      model: 'up-chat',
      input: [{ role: 'user', content: '3 + 4?' }, ...(asked.output as unknown as ResponseInputItem[]), { type: 'mcp_approval_response', approval_request_id: request.id, approve: true }],
      tools,
    });
    const runTypes: string[] = [];
    for await (const event of running) runTypes.push(event.type);
    const ran = await running.finalResponse();
    expect(ran.output.map((item) => item.type)).toEqual(['mcp_call', 'message']);
    expect(ran.output[0]).toMatchObject({ output: '7', approval_request_id: request.id });
    expect(ran.output_text).toBe('tool said: 7');
    expect(runTypes.indexOf('response.mcp_call.completed')).toBeLessThan(runTypes.indexOf('response.output_text.delta'));
  });

  it('{never: {tool_names}} runs the tools it names and asks for the others', async () => {
    script = (names) => (names.includes('calc__divide') ? { name: 'calc__divide', arguments: { a: 6, b: 3 } } : undefined);
    const asks = await client.responses.create({ model: 'up-chat', input: 'six by three', tools: [calc({ require_approval: { never: { tool_names: ['add'] } } })] });
    expect(asks.output.map((item) => item.type)).toEqual(['mcp_list_tools', 'mcp_approval_request']);
    const runs = await client.responses.create({ model: 'up-chat', input: 'six by three', tools: [calc({ require_approval: { never: { tool_names: ['divide'] } } })] });
    expect(runs.output[1]).toMatchObject({ type: 'mcp_call', name: 'divide', output: '2' });
  });

  it('a tool that reports isError, crashes its server or hangs is an mcp_call with error, and the answer goes on', async () => {
    script = (names) => (names.includes('calc__divide') ? { name: 'calc__divide', arguments: { a: 1, b: 0 } } : undefined);
    const refused = await client.responses.create({ model: 'up-chat', input: 'one by zero', tools: [calc({ allowed_tools: ['divide'] })] });
    expect(refused.output[1]).toMatchObject({ type: 'mcp_call', status: 'failed', output: null, error: 'cannot divide by zero' });
    expect(refused.output_text).toBe('tool said: Error: cannot divide by zero');

    script = () => ({ name: 'calc__crash', arguments: {} });
    const crashed = await client.responses.create({ model: 'up-chat', input: 'crash it', tools: [calc({ allowed_tools: ['crash'] })] });
    expect(crashed.status).toBe('completed');
    const crash = crashed.output[1];
    if (crash?.type !== 'mcp_call') throw new Error('expected an mcp_call');
    expect(crash.status).toBe('failed');
    expect(crash.error).toContain('calc');

    script = () => ({ name: 'calc__hang', arguments: {} });
    const started = Date.now();
    const hung = await client.responses.create({ model: 'up-chat', input: 'hang', tools: [calc({ allowed_tools: ['hang'] })] });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(hung.output[1]).toMatchObject({ type: 'mcp_call', status: 'failed', error: expect.stringContaining('3000 ms') });
    expect(hung.output_text).toContain('tool said: Error:');

    // The server is started again after its crash: the gateway is not stalled.
    script = () => ({ name: 'calc__add', arguments: { a: 4, b: 4 } });
    const after = await client.responses.create({ model: 'up-chat', input: 'again', tools: [calc({ allowed_tools: ['add'] })] });
    expect(after.output_text).toBe('tool said: 8');
  }, 30_000);

  it('arguments that do not match the tool’s schema are an mcp_call error, before the server is called', async () => {
    script = () => ({ name: 'calc__add', arguments: { a: 'two' } });
    const response = await client.responses.create({ model: 'up-chat', input: 'bad args', tools: [calc({ allowed_tools: ['add'] })] });
    expect(response.output[1]).toMatchObject({ type: 'mcp_call', status: 'failed', error: expect.stringMatching(/argument/i) });
  });

  it('a server that answers garbage when listed is the spec’s upstream error, not a stalled request', async () => {
    const error = await client.responses.create({ model: 'up-chat', input: 'hi', tools: [{ type: 'mcp', server_label: 'broken', server_url: `${garbage.url}/mcp`, require_approval: 'never' }] }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe('INFERENCE_3105');
  });

  it('an unknown label without server_url, a connector and an approval answer without its request are 400s naming the field', async () => {
    const unknown = await client.responses.create({ model: 'up-chat', input: 'hi', tools: [{ type: 'mcp', server_label: 'nowhere' }] }).catch((thrown: unknown) => thrown);
    expect((unknown as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect((unknown as { error: { details: { field: string } } }).error.details.field).toBe('tools[0].server_url');
    const connector = await client.responses.create({ model: 'up-chat', input: 'hi', tools: [{ type: 'mcp', server_label: 'drive', connector_id: 'connector_googledrive' }] }).catch((thrown: unknown) => thrown);
    expect((connector as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    const orphan = await client.responses
      .create({ model: 'up-chat', input: [{ role: 'user', content: 'hi' }, { type: 'mcp_approval_response', approval_request_id: 'mcpr_x', approve: true }], tools: [calc()] })
      .catch((thrown: unknown) => thrown);
    expect((orphan as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
  });

  it('the built-in local model calls a forced MCP tool and answers', async () => {
    const response = await client.responses.create({
      model: 'local-echo',
      input: 'kiwi',
      tools: [{ type: 'mcp', server_label: 'notes', server_url: notes.url, require_approval: 'never', allowed_tools: ['lookup'] }],
      tool_choice: { type: 'mcp', server_label: 'notes', name: 'lookup' },
    });
    expect(response.output.map((item) => item.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    const called = response.output[1];
    if (called?.type !== 'mcp_call') throw new Error('expected an mcp_call');
    expect(called.name).toBe('lookup');
    expect(called.output).toMatch(/a note about/);
  });
});

describe('mcp tool access', () => {
  it('a key without kit.mcp is refused with AUTH_1015 naming the scope', async () => {
    const chatOnly = await gw.newKey({ name: 'chat-only', scopes: ['inference.chat'] });
    const error = await gw.openai(chatOnly).responses.create({ model: 'up-chat', input: 'hi', tools: [calc()] }).catch((thrown: unknown) => thrown);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(403);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe('AUTH_1015');
    expect((error as Error).message).toContain('kit.mcp');
    const withMcp = await gw.newKey({ name: 'chat-mcp', scopes: ['inference.chat', 'kit.mcp'] });
    const response = await gw.openai(withMcp).responses.create({ model: 'up-chat', input: 'hi', tools: [calc()] });
    expect(response.status).toBe('completed');
  });

  it('a server_url on a private address is refused unless server.allow_private_urls', async () => {
    const strict = await startTestGateway(upstreamConfig(upstream.url));
    try {
      const strictKey = await strict.newKey({ name: 'strict' });
      const reached = notes.headers.length;
      const error = await strict
        .openai(strictKey)
        .responses.create({ model: 'up-chat', input: 'hi', tools: [{ type: 'mcp', server_label: 'notes', server_url: notes.url, require_approval: 'never' }] })
        .catch((thrown: unknown) => thrown);
      expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
      expect((error as InstanceType<typeof OpenAI.APIError>).message).toMatch(/non-public|loopback/);
      expect(notes.headers).toHaveLength(reached);
    } finally {
      await strict.close();
    }
  });
});
