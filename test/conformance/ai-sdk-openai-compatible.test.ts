import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { embed, embedMany, generateObject, generateText, stepCountIs, streamObject, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startTestGateway, upstreamConfig, type TestGateway } from '../helpers/gateway.js';
import { scriptedChatModel } from '../helpers/scripted-chat-upstream.js';

/**
 * The AI SDK's generic OpenAI-compatible provider (`@ai-sdk/openai-compatible` 2), the way its
 * docs point it at any OpenAI-style server: name, baseURL, apiKey; structured outputs and usage
 * in streams switched on, as igw supports both. Built-in models, plus an OpenAI-kind fake upstream
 * that calls tools for the tool loop.
 */
describe('AI SDK (@ai-sdk/openai-compatible) against igw', () => {
  let igw: TestGateway;
  let upstream: FakeUpstream;
  let provider: ReturnType<typeof createOpenAICompatible>;
  beforeAll(async () => {
    upstream = await startFakeUpstream(scriptedChatModel((names) => (names.includes('add') ? { name: 'add', arguments: { a: 2, b: 3 } } : undefined)));
    igw = await startTestGateway(upstreamConfig(upstream.url));
    provider = createOpenAICompatible({ name: 'igw', baseURL: `${igw.url}/v1`, apiKey: igw.key, supportsStructuredOutputs: true, includeUsage: true });
  });
  afterAll(async () => {
    await igw.close();
    await upstream.close();
  });

  const add = (calls: number[][]) =>
    tool({
      description: 'Adds two numbers.',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      execute: async ({ a, b }) => {
        calls.push([a, b]);
        return a + b;
      },
    });
  const person = z.object({ name: z.string(), age: z.number().int(), tags: z.array(z.string()) });

  it('generateText', async () => {
    const result = await generateText({ model: provider.chatModel('local-echo'), prompt: 'compatible hello' });
    expect(result.text).toBe('compatible hello');
    expect(result.usage.inputTokens).toBeGreaterThan(0);
  });

  it('streamText, usage included', async () => {
    const result = streamText({ model: provider.chatModel('local-echo'), prompt: 'a stream of several words' });
    const parts: string[] = [];
    for await (const part of result.textStream) parts.push(part);
    expect(parts.join('')).toBe('a stream of several words');
    expect(parts.length).toBeGreaterThan(1);
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
  });

  it('tool loop (generateText and streamText)', async () => {
    const calls: number[][] = [];
    const generated = await generateText({ model: provider.chatModel('up-chat'), prompt: '2 + 3?', tools: { add: add(calls) }, stopWhen: stepCountIs(4) });
    expect(generated.text).toBe('tool said: 5');
    const streamed = streamText({ model: provider.chatModel('up-chat'), prompt: '2 + 3?', tools: { add: add(calls) }, stopWhen: stepCountIs(4) });
    let text = '';
    for await (const part of streamed.textStream) text += part;
    expect(text).toBe('tool said: 5');
    expect(calls).toEqual([[2, 3], [2, 3]]);
  });

  it('generateObject and streamObject: valid against the zod schema', async () => {
    const { object } = await generateObject({ model: provider.chatModel('local-echo'), schema: person, prompt: 'someone' });
    expect(person.safeParse(object).success).toBe(true);
    const streamed = streamObject({ model: provider.chatModel('local-echo'), schema: person, prompt: 'someone' });
    // The SDK settles `object` once the stream has been read (its documented contract).
    const partials: unknown[] = [];
    for await (const partial of streamed.partialObjectStream) partials.push(partial);
    expect(partials.length).toBeGreaterThan(1);
    expect(person.safeParse(await streamed.object).success).toBe(true);
  });

  it('embed and embedMany', async () => {
    const model = provider.embeddingModel('local-embed');
    expect((await embed({ model, value: 'one text' })).embedding).toHaveLength(384);
    const many = await embedMany({ model, values: ['a', 'b'] });
    expect(many.embeddings.map((vector) => vector.length)).toEqual([384, 384]);
  });
});
