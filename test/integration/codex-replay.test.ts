import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, upstreamConfig, type TestGateway } from '../helpers/gateway.js';
import { repoRoot } from '../helpers/recorded.js';
import { scriptedChatModel } from '../helpers/scripted-chat-upstream.js';
import { responsesApiUpstreamConfig, useUpstreamGateway } from '../helpers/upstream-suite.js';

/**
 * The requests the Codex CLI sends (fixtures/clients/codex, captured by
 * test/real-clients/codex/run.mjs) replayed against a real gateway: the built-in model, an
 * OpenAI-kind upstream igw translates to chat completions, and one that speaks the Responses API
 * natively. `npm run test:clients` runs Codex itself; this keeps its request shapes in `npm test`.
 */

interface Capture {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, any>;
}

const capture = (name: string): Capture => JSON.parse(readFileSync(path.join(repoRoot, 'fixtures/clients/codex', name), 'utf8')) as Capture;
const CAPTURES = ['exec-plain.request.json', 'exec-tool-loop-1.request.json', 'exec-tool-loop-2.request.json', 'exec-gpt-5.5-tool-loop-1.request.json', 'exec-gpt-5.5-tool-loop-2.request.json'];

/** Replays a capture with its own headers and the test key; `edit` adjusts the body (model, stream). */
async function replay(url: string, key: string, name: string, edit: (body: Record<string, any>) => Record<string, any> = (body) => body): Promise<{ status: number; headers: Headers; text: string }> {
  const { method, path: requestPath, headers, body } = capture(name);
  const response = await fetch(`${url}${requestPath}`, { method, headers: { ...headers, authorization: `Bearer ${key}` }, body: JSON.stringify(edit(structuredClone(body))) });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

function events(text: string): Array<Record<string, any>> {
  return text
    .split('\n\n')
    .filter((frame) => frame.includes('data:'))
    .map((frame) => JSON.parse(/^data: (.*)$/m.exec(frame)![1]!) as Record<string, any>);
}

const webSearchIndex = (name: string) => capture(name).body['tools'].findIndex((tool: { type: string }) => tool.type === 'web_search');

describe('Codex requests replayed: built-in model', () => {
  let igw: TestGateway;
  beforeAll(async () => {
    igw = await startTestGateway();
  });
  afterAll(async () => igw.close());

  it.each(CAPTURES)('%s → a complete event stream; web_search (no provider can search) dropped and named', async (name) => {
    const answer = await replay(igw.url, igw.key, name, (body) => ({ ...body, model: 'local-echo' }));
    expect(answer.status, answer.text.slice(0, 400)).toBe(200);
    expect(answer.headers.get('igw-ignored-params')).toContain('tools[].type=web_search');
    const stream = events(answer.text);
    expect(stream[0]!['type']).toBe('response.created');
    const final = stream.at(-1)!;
    expect(final['type']).toBe('response.completed');
    // local-echo answers with the last user text.
    const lastUser = capture(name).body['input'].filter((item: { role?: string }) => item.role === 'user').at(-1).content[0].text;
    expect(final['response'].output).toEqual([expect.objectContaining({ type: 'message', content: [expect.objectContaining({ text: lastUser })] })]);
    expect(final['response'].tools.some((tool: { type: string }) => tool.type === 'web_search')).toBe(false);
  });

  it('the same request forcing web_search still refuses, naming what can run it', async () => {
    const answer = await replay(igw.url, igw.key, 'exec-plain.request.json', (body) => ({ ...body, model: 'local-echo', tool_choice: { type: 'web_search' } }));
    expect(answer.status).toBe(400);
    const error = JSON.parse(answer.text).error;
    expect(error).toMatchObject({ code: 'VALIDATION_4005', type: 'invalid_request_error', param: `tools[${webSearchIndex('exec-plain.request.json')}].type` });
    expect(error.message).toContain('runs only on a provider that speaks the OpenAI Responses API');
  });
});

describe('Codex requests replayed: OpenAI-kind upstream, translated to chat completions', () => {
  // The model calls a namespace function under its flat name, as a chat model sees it.
  const called = 'multi_agent_v1__spawn_agent';
  const suite = useUpstreamGateway(
    scriptedChatModel((names) => {
      // Offered apply_patch alone (allowed_tools), the model calls it; otherwise the namespaced call.
      if (names.length === 1 && names[0] === 'apply_patch') return { name: 'apply_patch', arguments: { input: 'patch text' } };
      return names.includes(called) ? { name: called, arguments: { message: 'look around' } } : undefined;
    }),
    upstreamConfig,
  );

  it('namespace tools reach the model as flat functions; its call comes back as a function_call with its namespace (stream)', async () => {
    const answer = await replay(suite.igw.url, suite.igw.key, 'exec-tool-loop-1.request.json', (body) => ({ ...body, model: 'up-chat' }));
    expect(answer.status, answer.text.slice(0, 400)).toBe(200);
    const sent = suite.upstream.requests[0]!.body;
    const namespace = capture('exec-tool-loop-1.request.json').body['tools'].find((tool: { type: string }) => tool.type === 'namespace');
    const flat = sent.tools.filter((tool: { function: { name: string } }) => tool.function.name.startsWith('multi_agent_v1__'));
    expect(flat.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(namespace.tools.map((member: { name: string }) => `multi_agent_v1__${member.name}`));
    expect(flat[0].function.description).toContain(namespace.description);
    expect(sent.tools.some((tool: { type: string }) => tool.type !== 'function')).toBe(false);
    for (const field of ['client_metadata', 'prompt_cache_key', 'include', 'store']) expect(sent).not.toHaveProperty(field);
    const stream = events(answer.text);
    const added = stream.find((event) => event['type'] === 'response.output_item.added')!;
    expect(added['item']).toMatchObject({ type: 'function_call', name: 'spawn_agent', namespace: 'multi_agent_v1', status: 'in_progress' });
    const final = stream.at(-1)!;
    expect(final['type']).toBe('response.completed');
    expect(final['response'].output).toEqual([expect.objectContaining({ type: 'function_call', name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: JSON.stringify({ message: 'look around' }) })]);
  });

  it('gpt-5.5 requests: the custom apply_patch tool is a function with one text input; its call comes back as a custom_tool_call; tool_search is dropped and named', async () => {
    const answer = await replay(suite.igw.url, suite.igw.key, 'exec-gpt-5.5-tool-loop-1.request.json', (body) => ({ ...body, model: 'up-chat', tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'custom', name: 'apply_patch' }] } }));
    expect(answer.status, answer.text.slice(0, 400)).toBe(200);
    expect(answer.headers.get('igw-ignored-params')).toContain('tools[].type=tool_search');
    const offered = suite.upstream.requests[0]!.body.tools.find((tool: { function: { name: string } }) => tool.function.name === 'apply_patch');
    expect(offered.function.parameters).toMatchObject({ properties: { input: { type: 'string' } }, required: ['input'] });
    expect(offered.function.description).toContain('lark grammar');
    expect(suite.upstream.requests[0]!.body.tools).toHaveLength(1);
    expect(suite.upstream.requests[0]!.body.tool_choice).toBe('required');
    const final = events(answer.text).at(-1)!;
    expect(final['response'].output).toEqual([expect.objectContaining({ type: 'custom_tool_call', name: 'apply_patch', input: 'patch text' })]);
  });

  it('a custom_tool_call and its output sent back reach the model as a call of its function and a tool message', async () => {
    const answer = await replay(suite.igw.url, suite.igw.key, 'exec-gpt-5.5-tool-loop-2.request.json', (body) => {
      const input = body['input'].filter((item: { type: string }) => item.type === 'message');
      input.push({ type: 'custom_tool_call', call_id: 'call_p', name: 'apply_patch', input: '*** Begin Patch\n*** End Patch\n' }, { type: 'custom_tool_call_output', call_id: 'call_p', output: 'Done!' });
      return { ...body, model: 'up-chat', input };
    });
    expect(answer.status, answer.text.slice(0, 400)).toBe(200);
    const messages = suite.upstream.requests[0]!.body.messages as Array<{ role: string; tool_calls?: Array<{ function: { name: string; arguments: string } }>; content: unknown }>;
    expect(messages.at(-2)!.tool_calls).toEqual([{ id: 'call_p', type: 'function', function: { name: 'apply_patch', arguments: JSON.stringify({ input: '*** Begin Patch\n*** End Patch\n' }) } }]);
    expect(messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_p', content: 'Done!' });
  });

  it('the same without stream: one response object with the namespaced call', async () => {
    const answer = await replay(suite.igw.url, suite.igw.key, 'exec-tool-loop-1.request.json', (body) => ({ ...body, model: 'up-chat', stream: false }));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text).output).toEqual([expect.objectContaining({ type: 'function_call', name: 'spawn_agent', namespace: 'multi_agent_v1' })]);
  });

  it('the second turn: the function_call and its output go back to the model; a namespaced call under its flat name', async () => {
    const answer = await replay(suite.igw.url, suite.igw.key, 'exec-tool-loop-2.request.json', (body) => {
      const call = body['input'].find((item: { type: string }) => item.type === 'function_call');
      Object.assign(call, { name: 'wait_agent', namespace: 'multi_agent_v1' });
      return { ...body, model: 'up-chat' };
    });
    expect(answer.status, answer.text.slice(0, 400)).toBe(200);
    const messages = suite.upstream.requests[0]!.body.messages as Array<{ role: string; tool_calls?: Array<{ id: string; function: { name: string } }>; tool_call_id?: string; content: unknown }>;
    const assistant = messages.find((message) => message.role === 'assistant')!;
    expect(assistant.tool_calls).toEqual([expect.objectContaining({ id: 'call_fake_1', function: expect.objectContaining({ name: 'multi_agent_v1__wait_agent' }) })]);
    const tool = messages.find((message) => message.role === 'tool')!;
    expect(tool).toMatchObject({ tool_call_id: 'call_fake_1' });
    expect(String(tool.content)).toContain('igw-tool-loop-ok');
    expect(events(answer.text).at(-1)!['response'].output).toEqual([expect.objectContaining({ type: 'message', content: [expect.objectContaining({ text: expect.stringContaining('tool said:') })] })]);
  });
});

describe('Codex requests replayed: a provider that speaks the Responses API (native pass-through)', () => {
  const completed = { id: 'resp_up', object: 'response', created_at: 1, model: 'gpt-up', status: 'completed', output: [{ type: 'message', id: 'msg_up', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'native', annotations: [] }] }], usage: { input_tokens: 9, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 10 } };
  const sse = `event: response.created\ndata: ${JSON.stringify({ type: 'response.created', sequence_number: 0, response: { ...completed, status: 'in_progress', output: [], usage: null } })}\n\nevent: response.completed\ndata: ${JSON.stringify({ type: 'response.completed', sequence_number: 1, response: completed })}\n\n`;
  const suite = useUpstreamGateway(
    () => ({ rawSse: sse }),
    responsesApiUpstreamConfig,
  );

  it('what igw does not act on reaches the provider as Codex sent it', async () => {
    const answer = await replay(suite.igw.url, suite.igw.key, 'exec-tool-loop-1.request.json', (body) => ({ ...body, model: 'up-chat' }));
    expect(answer.status, answer.text.slice(0, 400)).toBe(200);
    expect(answer.headers.get('igw-ignored-params')).toBeNull();
    const { body } = capture('exec-tool-loop-1.request.json');
    const sent = suite.upstream.requests[0]!;
    expect(sent.path).toBe('/v1/responses');
    const { model: _model, stream: _stream, ...rest } = body;
    expect(sent.body).toMatchObject({ ...rest, model: 'real-model-1', store: false });
    expect(events(answer.text).at(-1)!['response']).toMatchObject({ status: 'completed', model: 'up-chat' });
  });
});
