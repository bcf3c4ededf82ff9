import { AIMessage } from '@langchain/core/messages';
import { ChatOpenAI, OpenAIEmbeddings } from '@langchain/openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lookupTool, runLookupLoop } from '../helpers/client-fixtures.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startTestGateway, upstreamConfig, type TestGateway } from '../helpers/gateway.js';
import { scriptedChatModel } from '../helpers/scripted-chat-upstream.js';

/**
 * LangChain's OpenAI integration (`@langchain/openai` 1.5) pointed at igw by its documented
 * `configuration.baseURL`, over chat completions and over the Responses API
 * (`useResponsesApi`). Built-in models; an OpenAI-kind fake upstream calls tools for the loop.
 */
describe('LangChain (@langchain/openai) against igw', () => {
  let igw: TestGateway;
  let upstream: FakeUpstream;
  beforeAll(async () => {
    upstream = await startFakeUpstream(scriptedChatModel((names) => (names.includes('lookup') ? { name: 'lookup', arguments: { term: 'igw' } } : undefined)));
    igw = await startTestGateway(upstreamConfig(upstream.url));
  });
  afterAll(async () => {
    await igw.close();
    await upstream.close();
  });

  const verdict = z.object({ label: z.enum(['good', 'bad']), score: z.number(), reasons: z.array(z.string()) });

  describe.each([
    ['chat completions', false],
    ['responses', true],
  ] as const)('%s', (_surface, useResponsesApi) => {
    const chat = (model: string) => new ChatOpenAI({ model, apiKey: igw.key, configuration: { baseURL: `${igw.url}/v1` }, useResponsesApi, maxRetries: 0 });

    it('invoke', async () => {
      const answer = await chat('local-echo').invoke('Hello, LangChain');
      expect(answer.text).toBe('Hello, LangChain');
      expect(answer.usage_metadata?.output_tokens).toBeGreaterThan(0);
    });

    it('stream', async () => {
      const pieces: string[] = [];
      for await (const chunk of await chat('local-echo').stream('chunks add up to the answer')) pieces.push(chunk.text);
      expect(pieces.join('')).toBe('chunks add up to the answer');
      expect(pieces.filter((piece) => piece !== '').length).toBeGreaterThan(1);
    });

    it('tools: bindTools, the model calls the tool, the result goes back, the model answers', async () => {
      const { first, second } = await runLookupLoop(chat('up-chat').bindTools([lookupTool]));
      expect(first.tool_calls).toEqual([expect.objectContaining({ name: 'lookup', args: { term: 'igw' } })]);
      expect(second).toBeInstanceOf(AIMessage);
      expect(second.text).toBe('tool said: igw is a local inference gateway');
    });

    it('withStructuredOutput: the object validates against the zod schema', async () => {
      const result = await chat('local-echo').withStructuredOutput(verdict).invoke('judge this');
      expect(verdict.safeParse(result).success).toBe(true);
    });
  });

  it('OpenAIEmbeddings: embedQuery and embedDocuments', async () => {
    const embeddings = new OpenAIEmbeddings({ model: 'local-embed', apiKey: igw.key, configuration: { baseURL: `${igw.url}/v1` }, maxRetries: 0 });
    expect(await embeddings.embedQuery('one query')).toHaveLength(384);
    const documents = await embeddings.embedDocuments(['first', 'second', 'third']);
    expect(documents.map((vector) => vector.length)).toEqual([384, 384, 384]);
  });
});
