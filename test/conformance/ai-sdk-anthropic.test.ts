import { createAnthropic } from '@ai-sdk/anthropic';
import { generateObject, generateText, stepCountIs, streamObject, streamText } from 'ai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { recipeSchema, weatherTool } from '../helpers/client-fixtures.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { bothUpstreamsConfig, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { scriptedMessagesModel } from '../helpers/scripted-anthropic-upstream.js';
import { scriptedChatModel } from '../helpers/scripted-chat-upstream.js';

/**
 * The AI SDK (`ai` 6 + `@ai-sdk/anthropic` 3) pointed at igw by its documented base URL setting.
 * Two paths: translated (the built-in local-echo for text and objects, an OpenAI-kind fake that
 * calls tools for the loops) and native pass-through (an Anthropic-kind fake for everything).
 * The SDK streams tools with `eager_input_streaming: true` (also its JSON tool for objects),
 * which igw once refused: streamText with tools and streamObject failed (issue 15).
 */
describe('AI SDK (@ai-sdk/anthropic) against igw', () => {
  let igw: TestGateway;
  let openaiUpstream: FakeUpstream;
  let anthropicUpstream: FakeUpstream;
  let provider: ReturnType<typeof createAnthropic>;
  const callWeather = (names: string[]) => (names.includes('weather') ? { name: 'weather', arguments: { city: 'Paris' } } : undefined);
  beforeAll(async () => {
    openaiUpstream = await startFakeUpstream(scriptedChatModel(callWeather));
    anthropicUpstream = await startFakeUpstream(scriptedMessagesModel(callWeather));
    igw = await startTestGateway(bothUpstreamsConfig(openaiUpstream.url, anthropicUpstream.url));
    provider = createAnthropic({ baseURL: `${igw.url}/v1`, apiKey: igw.key });
  });
  afterAll(async () => {
    await igw.close();
    await openaiUpstream.close();
    await anthropicUpstream.close();
  });
  afterEach(() => {
    openaiUpstream.requests.length = 0;
    anthropicUpstream.requests.length = 0;
  });


  describe.each([
    ['translated', 'local-echo', 'up-chat'],
    ['native pass-through', 'claude-chat', 'claude-chat'],
  ] as const)('%s', (path, textModel, toolModel) => {
    it('generateText: the model answers, usage reported', async () => {
      const result = await generateText({ model: provider(textModel), prompt: 'Hello from the AI SDK' });
      expect(result.text).toBe('Hello from the AI SDK');
      expect(result.finishReason).toBe('stop');
      expect(result.usage.outputTokens).toBeGreaterThan(0);
    });

    it('streamText: text arrives in parts and adds up', async () => {
      const result = streamText({ model: provider(textModel), prompt: 'streaming through igw works' });
      const parts: string[] = [];
      for await (const part of result.textStream) parts.push(part);
      expect(parts.length).toBeGreaterThan(1);
      expect(parts.join('')).toBe('streaming through igw works');
      expect((await result.usage).outputTokens).toBeGreaterThan(0);
    });

    it('generateText tool loop: the model calls the tool, the SDK runs it and the model answers with its result', async () => {
      const calls: string[] = [];
      const result = await generateText({ model: provider(toolModel), prompt: 'Weather in Paris?', tools: { weather: weatherTool(calls) }, stopWhen: stepCountIs(4) });
      expect(calls).toEqual(['Paris']);
      expect(result.steps).toHaveLength(2);
      expect(result.text).toBe('tool said: sunny in Paris');
    });

    it('streamText tool loop (tools streamed with eager_input_streaming)', async () => {
      const calls: string[] = [];
      const result = streamText({ model: provider(toolModel), prompt: 'Weather in Paris?', tools: { weather: weatherTool(calls) }, stopWhen: stepCountIs(4) });
      let text = '';
      for await (const part of result.textStream) text += part;
      expect(calls).toEqual(['Paris']);
      expect(text).toBe('tool said: sunny in Paris');
      expect(await result.steps).toHaveLength(2);
      const response = await result.response;
      if (path === 'translated') {
        expect(response.headers?.['igw-ignored-params']).toContain('tools[].eager_input_streaming');
      } else {
        expect(anthropicUpstream.requests[0]!.body.tools[0]).toMatchObject({ name: 'weather', eager_input_streaming: true });
        expect(response.headers?.['igw-ignored-params']).toBeUndefined();
      }
    });

    it('forced tool call: arguments valid against the tool schema', async () => {
      const calls: string[] = [];
      const result = await generateText({ model: provider(textModel), prompt: 'call it', tools: { weather: weatherTool(calls) }, toolChoice: 'required', stopWhen: stepCountIs(1) });
      expect(result.toolCalls).toHaveLength(1);
      expect(calls).toHaveLength(1);
      expect(typeof calls[0]).toBe('string');
    });

    it('generateObject: JSON valid against the zod schema', async () => {
      const { object } = await generateObject({ model: provider(textModel), schema: recipeSchema, prompt: 'A recipe' });
      expect(recipeSchema.safeParse(object).success).toBe(true);
    });

    it('streamObject: partial objects, and the final object is valid against the zod schema', async () => {
      const result = streamObject({ model: provider(textModel), schema: recipeSchema, prompt: 'A recipe' });
      let partials = 0;
      for await (const _partial of result.partialObjectStream) partials += 1;
      expect(partials).toBeGreaterThan(0);
      expect(recipeSchema.safeParse(await result.object).success).toBe(true);
    });

    it('generateObject through output_config.format (structuredOutputMode outputFormat)', async () => {
      const { object } = await generateObject({ model: provider(textModel), schema: recipeSchema, prompt: 'A recipe', providerOptions: { anthropic: { structuredOutputMode: 'outputFormat' } } });
      expect(recipeSchema.safeParse(object).success).toBe(true);
      if (path === 'native pass-through') expect(anthropicUpstream.requests[0]!.body.output_config.format).toMatchObject({ type: 'json_schema' });
    });
  });
});
