import { createOpenAI } from '@ai-sdk/openai';
import { embed, embedMany, generateObject, generateText, stepCountIs, streamObject, streamText } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recipeSchema, weatherTool } from '../helpers/client-fixtures.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startTestGateway, upstreamConfig, type TestGateway } from '../helpers/gateway.js';
import { scriptedChatModel } from '../helpers/scripted-chat-upstream.js';

/**
 * The AI SDK (`ai` 6 + `@ai-sdk/openai` 3) pointed at igw by its documented base URL setting,
 * with both of its OpenAI models: chat (/v1/chat/completions) and responses (/v1/responses).
 * Built-in models for text, objects and embeddings; an OpenAI-kind fake upstream on loopback
 * that calls tools for the tool loop (local-echo never calls a tool unless forced).
 */
describe('AI SDK (@ai-sdk/openai) against igw', () => {
  let igw: TestGateway;
  let upstream: FakeUpstream;
  let provider: ReturnType<typeof createOpenAI>;
  beforeAll(async () => {
    upstream = await startFakeUpstream(scriptedChatModel((names) => (names.includes('weather') ? { name: 'weather', arguments: { city: 'Paris' } } : undefined)));
    igw = await startTestGateway(upstreamConfig(upstream.url));
    provider = createOpenAI({ baseURL: `${igw.url}/v1`, apiKey: igw.key });
  });
  afterAll(async () => {
    await igw.close();
    await upstream.close();
  });


  describe.each([
    ['chat', (id: string) => provider.chat(id)],
    ['responses', (id: string) => provider.responses(id)],
  ] as const)('%s model', (_surface, model) => {
    it('generateText: the built-in model answers, usage reported', async () => {
      const result = await generateText({ model: model('local-echo'), prompt: 'Hello from the AI SDK' });
      expect(result.text).toBe('Hello from the AI SDK');
      expect(result.finishReason).toBe('stop');
      expect(result.usage.outputTokens).toBeGreaterThan(0);
    });

    it('streamText: text arrives in parts and adds up', async () => {
      const result = streamText({ model: model('local-echo'), prompt: 'streaming through igw works' });
      const parts: string[] = [];
      for await (const part of result.textStream) parts.push(part);
      expect(parts.length).toBeGreaterThan(1);
      expect(parts.join('')).toBe('streaming through igw works');
      expect((await result.usage).outputTokens).toBeGreaterThan(0);
    });

    it('generateText tool loop: the model calls the tool, the SDK runs it and the model answers with its result', async () => {
      const calls: string[] = [];
      const result = await generateText({ model: model('up-chat'), prompt: 'Weather in Paris?', tools: { weather: weatherTool(calls) }, stopWhen: stepCountIs(4) });
      expect(calls).toEqual(['Paris']);
      expect(result.steps).toHaveLength(2);
      expect(result.text).toBe('tool said: sunny in Paris');
    });

    it('streamText tool loop', async () => {
      const calls: string[] = [];
      const result = streamText({ model: model('up-chat'), prompt: 'Weather in Paris?', tools: { weather: weatherTool(calls) }, stopWhen: stepCountIs(4) });
      let text = '';
      for await (const part of result.textStream) text += part;
      expect(calls).toEqual(['Paris']);
      expect(text).toBe('tool said: sunny in Paris');
      expect(await result.steps).toHaveLength(2);
    });

    it('forced tool call on the built-in model: arguments valid against the tool schema', async () => {
      const calls: string[] = [];
      const result = await generateText({ model: model('local-echo'), prompt: 'call it', tools: { weather: weatherTool(calls) }, toolChoice: 'required', stopWhen: stepCountIs(1) });
      expect(result.toolCalls).toHaveLength(1);
      expect(calls).toHaveLength(1);
      expect(typeof calls[0]).toBe('string');
    });

    it('generateObject: JSON valid against the zod schema', async () => {
      const { object } = await generateObject({ model: model('local-echo'), schema: recipeSchema, prompt: 'A recipe' });
      expect(recipeSchema.safeParse(object).success).toBe(true);
    });

    it('streamObject: the final object is valid against the zod schema', async () => {
      const result = streamObject({ model: model('local-echo'), schema: recipeSchema, prompt: 'A recipe' });
      let partials = 0;
      for await (const _partial of result.partialObjectStream) partials += 1;
      expect(partials).toBeGreaterThan(0);
      expect(recipeSchema.safeParse(await result.object).success).toBe(true);
    });
  });

  it('embed and embedMany with the built-in embedding model', async () => {
    const single = await embed({ model: provider.embedding('local-embed'), value: 'igw embeds offline' });
    expect(single.embedding).toHaveLength(384);
    const many = await embedMany({ model: provider.embedding('local-embed'), values: ['one', 'two', 'three'] });
    expect(many.embeddings).toHaveLength(3);
    expect(many.embeddings[0]).toHaveLength(384);
    expect(many.embeddings[0]).not.toEqual(many.embeddings[1]);
  });
});
