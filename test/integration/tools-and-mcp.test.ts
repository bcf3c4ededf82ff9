import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { postJson, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startMcpHttpServer, type TestMcpHttpServer } from '../helpers/mcp/http-server.js';

const stdioServer = fileURLToPath(new URL('../helpers/mcp/stdio-server.mjs', import.meta.url));

let gw: TestGateway;
let key: string;
let notes: TestMcpHttpServer;
let garbage: FakeUpstream;
let storeId: string;

beforeAll(async () => {
  notes = await startMcpHttpServer();
  // Answers every MCP message with something that is not JSON-RPC.
  garbage = await startFakeUpstream(() => ({ status: 200, text: 'this is not an MCP server', headers: { 'content-type': 'application/json' } }));
  gw = await startTestGateway(
    {
      mcp_servers: {
        calc: { command: process.execPath, args: [stdioServer], allowed_tools: ['add', 'divide', 'crash', 'hang', 'pid'], timeout_ms: 1500 },
        notes: { url: notes.url, headers: { authorization: 'Bearer ${NOTES_TOKEN}' } },
        broken: { url: `${garbage.url}/mcp`, timeout_ms: 1500 },
      },
    },
    { NOTES_TOKEN: 'notes-secret' },
  );
  key = await gw.newKey({ name: 'tools', vault: true });
  const store = await gw.openai(key).vectorStores.create({ name: 'handbook' });
  storeId = store.id;
  for (const text of ['Key rotation: run igw keys rotate ID --grace 24h to roll keys without downtime.', 'The cafeteria serves soup on Fridays.']) {
    await postJson(`${gw.url}/v1/vector_stores/${storeId}/sources/text`, key, { text });
  }
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const retrieved = await gw.openai(key).vectorStores.retrieve(storeId);
    if (retrieved.file_counts.completed === 2) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}, 30_000);

afterAll(async () => {
  await gw?.close();
  await notes?.close();
  await garbage?.close();
});

const invoke = (name: string, args: unknown, apiKey = key) => postJson(`${gw.url}/v1/tools/${name}/invoke`, apiKey, { arguments: args });

async function mcpClient(server: string, apiKey = key): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/v1/mcp/${server}`), { requestInit: { headers: { authorization: `Bearer ${apiKey}` } } }));
  return client;
}

describe('GET /v1/tools', () => {
  it('lists the built-in tools and each reachable server’s allow-listed tools, with schemas and sources', async () => {
    const response = await fetch(`${gw.url}/v1/tools`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('igw-unavailable-mcp-servers')).toBe('broken');
    const list = (await response.json()) as { object: string; data: Array<{ name: string; source: string; input_schema: { type: string; properties?: Record<string, unknown> } }> };
    expect(list.object).toBe('list');
    const names = list.data.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['list_knowledge_bases', 'search_knowledge_base', 'convert_document', 'list_models', 'calc__add', 'calc__hang', 'notes__lookup']));
    expect(names).not.toContain('calc__secret');
    const add = list.data.find((tool) => tool.name === 'calc__add')!;
    expect(add.source).toBe('mcp:calc');
    expect(add.input_schema.type).toBe('object');
    expect(Object.keys(add.input_schema.properties ?? {})).toEqual(['a', 'b']);
    expect(list.data.find((tool) => tool.name === 'search_knowledge_base')!.source).toBe('igw');
  });

  it('a key sees only the built-ins its scopes and vault access allow; without kit.tools it is refused', async () => {
    const narrow = await gw.newKey({ name: 'narrow', scopes: ['kit.tools', 'inference.models'] });
    const list = (await (await fetch(`${gw.url}/v1/tools`, { headers: { authorization: `Bearer ${narrow}` } })).json()) as { data: Array<{ name: string }> };
    const names = list.data.map((tool) => tool.name);
    expect(names).toContain('list_models');
    expect(names).not.toContain('search_knowledge_base');
    expect(names).not.toContain('convert_document');
    const chatOnly = await gw.newKey({ name: 'chat', scopes: ['inference.chat'] });
    const refused = await fetch(`${gw.url}/v1/tools`, { headers: { authorization: `Bearer ${chatOnly}` } });
    expect(refused.status).toBe(403);
  });
});

describe('POST /v1/tools/{name}/invoke', () => {
  it('runs a stdio server’s tool with validated arguments', async () => {
    const { status, json } = await invoke('calc__add', { a: 2, b: 3 });
    expect(status).toBe(200);
    expect(json).toMatchObject({ object: 'tool.result', tool: 'calc__add', source: 'mcp:calc', is_error: false, content: [{ type: 'text', text: '5' }], structured_content: { sum: 5 } });
  });

  it('a tool that reports a failure answers 200 with is_error', async () => {
    const { status, json } = await invoke('calc__divide', { a: 1, b: 0 });
    expect(status).toBe(200);
    expect(json.is_error).toBe(true);
    expect(json.content[0].text).toContain('zero');
  });

  it.each([
    [{ a: 2 }, 'VALIDATION_4002', 'arguments.b'],
    [{ a: 2, b: 'three' }, 'VALIDATION_4005', 'arguments.b'],
  ])('bad arguments %j are refused before the server is called (%s %s)', async (args, code, field) => {
    const { status, json } = await invoke('calc__add', args);
    expect(status).toBe(400);
    expect(json.error.code).toBe(code);
    expect(json.error.details.field).toBe(field);
  });

  it('an unknown or not allow-listed tool is a 404 pointing at the list', async () => {
    for (const name of ['calc__secret', 'nope', 'ghost__add']) {
      const { status, json } = await invoke(name, {});
      expect(status).toBe(404);
      expect(json.error.message).toContain('GET /v1/tools');
    }
  });

  it('a hanging server fails with 504 INFERENCE_3107 within its timeout, and the gateway keeps serving', async () => {
    const started = Date.now();
    const { status, json } = await invoke('calc__hang', {});
    expect(status).toBe(504);
    expect(json.error.code).toBe('INFERENCE_3107');
    expect(json.error.message).toContain('calc');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await invoke('calc__add', { a: 1, b: 1 })).json.content[0].text).toBe('2');
  });

  it('a crashing stdio server is a 502 naming it, and is started again on the next call', async () => {
    const before = (await invoke('calc__pid', {})).json.content[0].text;
    const { status, json } = await invoke('calc__crash', {});
    expect(status).toBe(502);
    expect(json.error.code).toBe('INFERENCE_3105');
    const after = await invoke('calc__pid', {});
    expect(after.status).toBe(200);
    expect(after.json.content[0].text).not.toBe(before);
  });

  it('a server that does not speak MCP is a clean 502', async () => {
    const { status, json } = await invoke('broken__anything', {});
    expect(status).toBe(502);
    expect(json.error.code).toBe('INFERENCE_3105');
    expect(json.error.message).toContain('"broken"');
    const viaMcp = await fetch(`${gw.url}/v1/mcp/broken`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    const answer = (await viaMcp.json()) as { error?: { message: string } };
    expect(answer.error?.message).toContain('broken');
  });

  it('remote server headers come from the config with ${ENV} filled in', async () => {
    const { json } = await invoke('notes__whoami', {});
    expect(json.content[0].text).toBe('Bearer notes-secret');
  });

  it('built-in tools: knowledge-base search by name, document conversion, models', async () => {
    const listed = await invoke('list_knowledge_bases', {});
    expect(listed.json.content[0].text).toContain(`handbook (${storeId})`);
    const found = await invoke('search_knowledge_base', { knowledge_base: 'handbook', query: 'how do I rotate a key', max_num_results: 1 });
    expect(found.status).toBe(200);
    expect(found.json.content[0].text).toContain('igw keys rotate');
    expect(found.json.structured_content.results).toHaveLength(1);
    const missing = await invoke('search_knowledge_base', { knowledge_base: 'nothing-here', query: 'x' });
    expect(missing.status).toBe(404);
    const file = await gw.openai(key).files.create({ file: new File(['# Title\n\nBody text.'], 'note.md'), purpose: 'user_data' });
    const converted = await invoke('convert_document', { file_id: file.id });
    expect(converted.json.content[0].text).toBe('# Title\n\nBody text.');
    const models = await invoke('list_models', {});
    expect(models.json.content[0].text).toContain('local-echo (chat)');
  });

  it('every invocation is a request-log line naming the tool (igw usage shows tool calls)', async () => {
    await invoke('calc__add', { a: 5, b: 5 });
    const entries = await gw.gateway.app.store.requestLog.readSince(0);
    expect(entries.some((entry) => entry.model === 'tool:calc__add' && entry.endpoint === '/v1/tools/{name}/invoke' && entry.status === 200)).toBe(true);
  });
});

describe('/v1/mcp/{server} over Streamable HTTP', () => {
  it('igw’s own server: an MCP client lists its tools and searches the knowledge base with an igw key', async () => {
    const client = await mcpClient('igw');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['search_knowledge_base', 'list_knowledge_bases', 'convert_document', 'list_models']));
    const result = await client.callTool({ name: 'search_knowledge_base', arguments: { knowledge_base: 'handbook', query: 'soup day' } });
    expect((result.content as Array<{ text: string }>)[0]!.text).toContain('soup on Fridays');
    await client.close();
  });

  it('a configured server is exposed with its allow-listed tools under their own names', async () => {
    const client = await mcpClient('calc');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['add', 'crash', 'divide', 'hang', 'pid']);
    const result = await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
    expect((result.content as Array<{ text: string }>)[0]!.text).toBe('42');
    await expect(client.callTool({ name: 'secret', arguments: {} })).rejects.toThrow(/Unknown tool/);
    await client.close();
    const remote = await mcpClient('notes');
    const looked = await remote.callTool({ name: 'lookup', arguments: { word: 'gateway' } });
    expect((looked.content as Array<{ text: string }>)[0]!.text).toBe('gateway: a note about gateway');
    await remote.close();
  });

  it('invalid tool arguments are a JSON-RPC invalid-params error; a tool that fails is an isError result', async () => {
    const client = await mcpClient('igw');
    await expect(client.callTool({ name: 'search_knowledge_base', arguments: { query: 'x' } })).rejects.toThrow(/knowledge_base/);
    const failed = await client.callTool({ name: 'search_knowledge_base', arguments: { knowledge_base: 'nope', query: 'x' } });
    expect(failed.isError).toBe(true);
    expect((failed.content as Array<{ text: string }>)[0]!.text).toContain('RESOURCE_5420');
    await client.close();
  });

  it('needs an igw key with kit.mcp; an unknown server is a 404 envelope', async () => {
    const noKey = await fetch(`${gw.url}/v1/mcp/igw`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(noKey.status).toBe(401);
    const chatOnly = await gw.newKey({ name: 'chat2', scopes: ['inference.chat'] });
    await expect(mcpClient('igw', chatOnly)).rejects.toThrow();
    const unknown = await fetch(`${gw.url}/v1/mcp/ghost`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{}' });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toContain('/v1/mcp/calc');
  });
});
