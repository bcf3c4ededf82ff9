import { ChatAnthropic } from '@langchain/anthropic';
import { AIMessage, type AIMessageChunk } from '@langchain/core/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lookupTool, runLookupLoop } from '../helpers/client-fixtures.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { bothUpstreamsConfig, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { scriptedMessagesModel } from '../helpers/scripted-anthropic-upstream.js';
import { scriptedChatModel } from '../helpers/scripted-chat-upstream.js';

/**
 * LangChain's Anthropic integration (`@langchain/anthropic` 1.5) pointed at igw by its documented
 * `anthropicApiUrl`. Translated path: the built-in local-echo, and an OpenAI-kind fake that calls
 * tools for the loop; native pass-through: an Anthropic-kind fake for everything.
 */
describe('LangChain (@langchain/anthropic) against igw', () => {
  let igw: TestGateway;
  let openaiUpstream: FakeUpstream;
  let anthropicUpstream: FakeUpstream;
  const callLookup = (names: string[]) => (names.includes('lookup') ? { name: 'lookup', arguments: { term: 'igw' } } : undefined);
  beforeAll(async () => {
    openaiUpstream = await startFakeUpstream(scriptedChatModel(callLookup));
    anthropicUpstream = await startFakeUpstream(scriptedMessagesModel(callLookup));
    igw = await startTestGateway(bothUpstreamsConfig(openaiUpstream.url, anthropicUpstream.url));
  });
  afterAll(async () => {
    await igw.close();
    await openaiUpstream.close();
    await anthropicUpstream.close();
  });

  const verdict = z.object({ label: z.enum(['good', 'bad']), score: z.number(), reasons: z.array(z.string()) });

  describe.each([
    ['translated', 'local-echo', 'up-chat'],
    ['native pass-through', 'claude-chat', 'claude-chat'],
  ] as const)('%s', (_path, textModel, toolModel) => {
    const chat = (model: string) => new ChatAnthropic({ model, apiKey: igw.key, anthropicApiUrl: igw.url, maxRetries: 0, maxTokens: 256 });

    it('invoke', async () => {
      const answer = await chat(textModel).invoke('Hello, LangChain');
      expect(answer.text).toBe('Hello, LangChain');
      expect(answer.usage_metadata?.output_tokens).toBeGreaterThan(0);
    });

    it('stream', async () => {
      const pieces: string[] = [];
      for await (const chunk of await chat(textModel).stream('chunks add up to the answer')) pieces.push(chunk.text);
      expect(pieces.join('')).toBe('chunks add up to the answer');
      expect(pieces.filter((piece) => piece !== '').length).toBeGreaterThan(1);
    });

    it('tools: bindTools, the model calls the tool, the result goes back, the model answers', async () => {
      const { first, second } = await runLookupLoop(chat(toolModel).bindTools([lookupTool]));
      expect(first.tool_calls).toEqual([expect.objectContaining({ name: 'lookup', args: { term: 'igw' } })]);
      expect(second).toBeInstanceOf(AIMessage);
      expect(second.text).toBe('tool said: igw is a local inference gateway');
    });

    it('tools, streamed: the tool call arrives in chunks and concatenates', async () => {
      let merged: AIMessageChunk | undefined;
      for await (const chunk of await chat(toolModel).bindTools([lookupTool]).stream('What is igw?')) merged = merged === undefined ? chunk : merged.concat(chunk);
      expect(merged?.tool_calls).toEqual([expect.objectContaining({ name: 'lookup', args: { term: 'igw' } })]);
    });

    it('withStructuredOutput: the object validates against the zod schema', async () => {
      const result = await chat(textModel).withStructuredOutput(verdict).invoke('judge this');
      expect(verdict.safeParse(result).success).toBe(true);
    });
  });
});
