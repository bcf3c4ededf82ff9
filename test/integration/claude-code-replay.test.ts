import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicUpstreamConfig, startTestGateway, upstreamConfig, type TestGateway } from '../helpers/gateway.js';
import { repoRoot } from '../helpers/recorded.js';
import { scriptedMessagesModel } from '../helpers/scripted-anthropic-upstream.js';
import { scriptedChatModel } from '../helpers/scripted-chat-upstream.js';
import { useUpstreamGateway } from '../helpers/upstream-suite.js';

/**
 * The requests Claude Code sends (fixtures/clients/claude-code, captured by
 * test/real-clients/claude-code/run.mjs) replayed against a real gateway: the built-in model, an
 * Anthropic-kind upstream (native pass-through) and an OpenAI-kind upstream (translated).
 * `npm run test:clients` runs Claude Code itself; this keeps its request shapes in `npm test`.
 */

interface Capture {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, any>;
}

const capture = (name: string): Capture => JSON.parse(readFileSync(path.join(repoRoot, 'fixtures/clients/claude-code', name), 'utf8')) as Capture;
const CAPTURES = ['messages-plain.request.json', 'messages-tool-loop-1.request.json', 'messages-tool-loop-2.request.json'];

/** Replays a capture with its own headers and the test key (as x-api-key, as Claude Code sends it). */
async function replay(url: string, key: string, name: string): Promise<{ status: number; headers: Headers; text: string }> {
  const { method, path: requestPath, headers, body } = capture(name);
  const response = await fetch(`${url}${requestPath}`, { method, headers: { ...headers, 'x-api-key': key }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** The SSE events of a Messages stream, with the event name checked against the payload type. */
function events(text: string): Array<Record<string, any>> {
  return text
    .split('\n\n')
    .filter((frame) => frame.includes('data:'))
    .map((frame) => {
      const payload = JSON.parse(/^data: (.*)$/m.exec(frame)![1]!) as Record<string, any>;
      expect(/^event: (.*)$/m.exec(frame)?.[1]).toBe(payload['type']);
      return payload;
    });
}

/** A complete message stream: message_start … message_stop, no error event. */
function expectComplete(text: string): Array<Record<string, any>> {
  const stream = events(text);
  expect(stream[0]!['type']).toBe('message_start');
  expect(stream.at(-1)!['type']).toBe('message_stop');
  expect(stream.some((event) => event['type'] === 'error')).toBe(false);
  return stream;
}

const streamedText = (stream: Array<Record<string, any>>) => stream.map((event) => event['delta']?.text ?? '').join('');
const systemIndex = (body: Record<string, any>) => body['messages'].findIndex((message: { role: string }) => message.role === 'system');

describe('Claude Code requests replayed: built-in model', () => {
  let igw: TestGateway;
  beforeAll(async () => {
    igw = await startTestGateway();
  });
  afterAll(async () => igw.close());

  it('HEAD / (its first probe) answers 200 without a key', async () => {
    const { method, path: requestPath, headers } = capture('head-root.request.json');
    expect((await fetch(`${igw.url}${requestPath}`, { method, headers })).status).toBe(200);
  });

  it.each(CAPTURES)('%s → a complete message stream; what the hub cannot carry is named', async (name) => {
    const answer = await replay(igw.url, igw.key, name);
    expect(answer.status, answer.text.slice(0, 400)).toBe(200);
    expectComplete(answer.text);
    const ignored = answer.headers.get('igw-ignored-params')!.split(', ');
    expect(ignored).toEqual(expect.arrayContaining(['context_management', 'thinking', 'output_config.effort']));
  });
});

describe('Claude Code requests replayed: Anthropic-kind upstream (native pass-through)', () => {
  const suite = useUpstreamGateway(scriptedMessagesModel(() => undefined), anthropicUpstreamConfig);

  it.each(CAPTURES)('%s → forwarded as sent (beta header, thinking, context_management, mid-conversation system message), answered as streamed', async (name) => {
    const { headers, body } = capture(name);
    const answer = await replay(suite.igw.url, suite.igw.key, name);
    expect(answer.status, answer.text.slice(0, 400)).toBe(200);
    expect(answer.headers.get('igw-ignored-params')).toBeNull();
    expectComplete(answer.text);
    const sent = suite.upstream.requests[0]!;
    expect(sent.headers['anthropic-beta']).toBe(headers['anthropic-beta']);
    expect(Object.keys(sent.body).sort()).toEqual(Object.keys(body).sort());
    for (const field of ['thinking', 'context_management', 'output_config', 'metadata', 'max_tokens']) expect(sent.body[field]).toEqual(body[field]);
    expect(sent.body.messages.map((message: { role: string }) => message.role)).toEqual(body['messages'].map((message: { role: string }) => message.role));
    expect(sent.body.tools.map((tool: { name: string }) => tool.name)).toEqual(body['tools'].map((tool: { name: string }) => tool.name));
  });
});

describe('Claude Code requests replayed: OpenAI-kind upstream (translated)', () => {
  const callBash = (names: string[]) => (names.includes('Bash') ? { name: 'Bash', arguments: { command: 'echo igw-tool-loop-ok', description: 'Print the marker' } } : undefined);
  const suite = useUpstreamGateway(scriptedChatModel(callBash), (url) => upstreamConfig(url, { message_tiers: { opus: 'up-chat', sonnet: 'up-chat', haiku: 'up-chat' } }));

  it('the first turn: every tool offered as a function, the system message kept in place; the Bash call streams back as tool_use', async () => {
    const { body } = capture('messages-tool-loop-1.request.json');
    const answer = await replay(suite.igw.url, suite.igw.key, 'messages-tool-loop-1.request.json');
    expect(answer.status, answer.text.slice(0, 400)).toBe(200);
    const stream = expectComplete(answer.text);
    const toolStart = stream.find((event) => event['type'] === 'content_block_start' && event['content_block'].type === 'tool_use');
    expect(toolStart?.['content_block']).toMatchObject({ name: 'Bash' });
    expect(stream.find((event) => event['type'] === 'message_delta')?.['delta'].stop_reason).toBe('tool_use');

    const sent = suite.upstream.requests[0]!.body;
    expect(sent.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(body['tools'].map((tool: { name: string }) => tool.name));
    // One leading system message from `system`, then the conversation with its own system turn where it was.
    expect(sent.messages[0].role).toBe('system');
    expect(sent.messages[systemIndex(body) + 1]).toEqual({ role: 'system', content: body['messages'][systemIndex(body)].content });
    expect(sent).not.toHaveProperty('thinking');
    expect(answer.headers.get('igw-ignored-params')!.split(', ')).toEqual(expect.arrayContaining(['context_management', 'thinking', 'output_config.effort']));
  });

  it('the second turn: the tool result goes back as a tool message; the answer streams as text', async () => {
    const answer = await replay(suite.igw.url, suite.igw.key, 'messages-tool-loop-2.request.json');
    expect(answer.status, answer.text.slice(0, 400)).toBe(200);
    expect(streamedText(expectComplete(answer.text))).toBe('tool said: igw-tool-loop-ok');
    const sent = suite.upstream.requests[0]!.body;
    expect(sent.messages.at(-1)).toMatchObject({ role: 'tool', content: 'igw-tool-loop-ok' });
    expect(sent.messages.at(-2)).toMatchObject({ role: 'assistant', tool_calls: [{ function: { name: 'Bash' } }] });
  });
});
