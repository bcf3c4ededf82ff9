import { tool as langchainTool } from '@langchain/core/tools';
import { HumanMessage, ToolMessage, type AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { Runnable } from '@langchain/core/runnables';
import { tool } from 'ai';
import { z } from 'zod';

/**
 * What the client conformance tests share: the tools their loops run and the schemas their
 * structured-output calls ask for. The scripted upstreams (scripted-*-upstream.ts) call
 * `weather` with {city: "Paris"} and `lookup` with {term: "igw"}.
 */

/** An AI SDK tool that records each city it is asked about. */
export function weatherTool(calls: string[]) {
  return tool({
    description: 'The weather in a city.',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      calls.push(city);
      return `sunny in ${city}`;
    },
  });
}

export const recipeSchema = z.object({ name: z.string(), minutes: z.number().int(), steps: z.array(z.string()) });

/** A LangChain tool the scripted upstreams call with {term: "igw"}. */
export const lookupTool = langchainTool(async ({ term }) => `${term} is a local inference gateway`, { name: 'lookup', description: 'Looks a term up.', schema: z.object({ term: z.string() }) });

/**
 * One LangChain tool loop by hand: the model (tools bound) calls lookup, the result goes back
 * as a ToolMessage, the model answers. Returns both answers for the test to check.
 */
export async function runLookupLoop(model: Runnable<BaseMessage[], AIMessage>): Promise<{ first: AIMessage; second: AIMessage }> {
  const messages: BaseMessage[] = [new HumanMessage('What is igw?')];
  const first = await model.invoke(messages);
  messages.push(first);
  for (const call of first.tool_calls ?? []) messages.push(new ToolMessage({ tool_call_id: call.id!, content: String(await lookupTool.invoke(call.args as { term: string })) }));
  return { first, second: await model.invoke(messages) };
}
