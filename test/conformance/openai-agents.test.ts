import { Agent, OpenAIProvider, Runner, tool } from '@openai/agents';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startTestGateway, upstreamConfig, type TestGateway } from '../helpers/gateway.js';
import { scriptedChatModel } from '../helpers/scripted-chat-upstream.js';

/**
 * The OpenAI Agents SDK (`@openai/agents` 0.14) with a custom OpenAI client whose base URL is
 * igw, on the Responses API (its default), tracing off (it would export traces to OpenAI).
 * An agent with a function tool runs its loop through igw to an OpenAI-kind fake upstream that
 * calls the tool; the built-in model answers a plain run and a structured one.
 */
describe('OpenAI Agents SDK against igw', () => {
  let igw: TestGateway;
  let upstream: FakeUpstream;
  let runner: Runner;
  beforeAll(async () => {
    upstream = await startFakeUpstream(scriptedChatModel((names) => (names.includes('get_time') ? { name: 'get_time', arguments: { city: 'Tokyo' } } : undefined)));
    igw = await startTestGateway(upstreamConfig(upstream.url));
    const client = new OpenAI({ baseURL: `${igw.url}/v1`, apiKey: igw.key, maxRetries: 0 });
    runner = new Runner({ modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: true }), tracingDisabled: true });
  });
  afterAll(async () => {
    await igw.close();
    await upstream.close();
  });

  const asked: string[] = [];
  const getTime = tool({
    name: 'get_time',
    description: 'The local time in a city.',
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      asked.push(city);
      return `09:00 in ${city}`;
    },
  });

  it('a run with a function tool: the agent calls it through igw and answers with its result', async () => {
    asked.length = 0;
    const agent = new Agent({ name: 'clock', instructions: 'Use tools to answer.', model: 'up-chat', tools: [getTime] });
    const result = await runner.run(agent, 'What time is it in Tokyo?');
    expect(asked).toEqual(['Tokyo']);
    expect(result.finalOutput).toBe('tool said: 09:00 in Tokyo');
    // The second model call carried the function_call and its output back through /v1/responses.
    const second = upstream.requests.at(-1)!.body as { messages: Array<{ role: string; content?: unknown; tool_calls?: unknown[] }> };
    expect(second.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
  });

  it('a streamed run with the tool', async () => {
    asked.length = 0;
    const agent = new Agent({ name: 'clock', instructions: 'Use tools to answer.', model: 'up-chat', tools: [getTime] });
    const result = await runner.run(agent, 'Time in Tokyo?', { stream: true });
    let text = '';
    for await (const piece of result.toTextStream()) text += piece;
    await result.completed;
    expect(asked).toEqual(['Tokyo']);
    expect(text).toBe('tool said: 09:00 in Tokyo');
  });

  it('a plain run and a structured output on the built-in model', async () => {
    const plain = await runner.run(new Agent({ name: 'echo', instructions: 'Repeat.', model: 'local-echo' }), 'agents work offline');
    expect(plain.finalOutput).toBe('agents work offline');
    const schema = z.object({ title: z.string(), priority: z.number().int() });
    const structured = await runner.run(new Agent({ name: 'form', instructions: 'Fill the form.', model: 'local-echo', outputType: schema }), 'a task');
    expect(schema.safeParse(structured.finalOutput).success).toBe(true);
  });
});
