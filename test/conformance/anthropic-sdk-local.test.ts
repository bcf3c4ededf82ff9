import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

/** The official @anthropic-ai/sdk against igw's built-in local-echo model, offline. */
describe('anthropic SDK against the built-in local models', () => {
  let igw: TestGateway;
  let client: Anthropic;
  beforeAll(async () => {
    igw = await startTestGateway();
    client = igw.anthropic();
  });
  afterAll(async () => igw.close());

  it('create: echoes the last user text; the default tiers map to local-echo', async () => {
    const message = await client.messages.create({ model: 'claude-haiku-anything', max_tokens: 100, messages: [{ role: 'user', content: 'Hello, messages!' }] });
    expect(message.model).toBe('claude-haiku-anything');
    expect(message.content).toEqual([{ type: 'text', text: 'Hello, messages!' }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    const extra = message as unknown as { environment_impact: Record<string, unknown>; billing_cost: Record<string, unknown> };
    expect(extra.environment_impact).toMatchObject({ provider_id: 'local' });
    expect(extra.billing_cost).toEqual({ energy: '0', credits: '0', paid_with: 'energy' });
  });

  it('max_tokens → stop_reason max_tokens', async () => {
    const message = await client.messages.create({ model: 'local-echo', max_tokens: 2, messages: [{ role: 'user', content: 'one two three four five six' }] });
    expect(message.stop_reason).toBe('max_tokens');
  });

  it('tools: a forced tool gives a tool_use block with parsed input, and the result goes back', async () => {
    const tools = [{ name: 'lookup', description: 'Look up', input_schema: { type: 'object' as const, properties: { q: { type: 'string' } }, required: ['q'] } }];
    const first = await client.messages.create({ model: 'local-echo', max_tokens: 200, tools, tool_choice: { type: 'tool', name: 'lookup' }, messages: [{ role: 'user', content: 'find it' }] });
    expect(first.stop_reason).toBe('tool_use');
    const toolUse = first.content.find((block) => block.type === 'tool_use');
    expect(toolUse).toMatchObject({ type: 'tool_use', name: 'lookup' });
    expect(typeof (toolUse as { input: { q: unknown } }).input.q).toBe('string');
    const second = await client.messages.create({
      model: 'local-echo',
      max_tokens: 200,
      tools,
      messages: [
        { role: 'user', content: 'find it' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: (toolUse as { id: string }).id, content: 'found' }, { type: 'text', text: 'thanks, done' }] },
      ],
    });
    expect(second.content).toEqual([{ type: 'text', text: 'thanks, done' }]);
  });

  it('stream: .stream() text events and finalMessage() equal the non-stream answer', async () => {
    const params = { model: 'local-echo', max_tokens: 100, messages: [{ role: 'user' as const, content: 'streaming works token by token' }] };
    const stream = client.messages.stream(params);
    let text = '';
    let starts = 0;
    stream.on('text', (delta) => (text += delta));
    stream.on('streamEvent', (event) => {
      if (event.type === 'message_start') {
        starts += 1;
        expect(event.message.usage.input_tokens).toBeGreaterThan(0);
      }
    });
    const final = await stream.finalMessage();
    const whole = await client.messages.create(params);
    expect(starts).toBe(1);
    expect(text).toBe('streaming works token by token');
    expect(final.content).toEqual(whole.content);
    expect(final.stop_reason).toBe(whole.stop_reason);
    expect(final.usage.output_tokens).toBe(whole.usage.output_tokens);
  });

  it('stream: a forced tool streams its input as input_json_delta', async () => {
    const tools = [{ name: 'lookup', description: 'Look up', input_schema: { type: 'object' as const, properties: { q: { type: 'string' } }, required: ['q'] } }];
    const stream = client.messages.stream({ model: 'local-echo', max_tokens: 200, tools, tool_choice: { type: 'any' }, messages: [{ role: 'user', content: 'find it' }] });
    const partials: string[] = [];
    stream.on('inputJson', (partial) => partials.push(partial));
    const final = await stream.finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    const toolUse = final.content.find((block) => block.type === 'tool_use') as { input: Record<string, unknown> } | undefined;
    expect(toolUse?.input).toEqual(JSON.parse(partials.join('')));
    expect(partials.length).toBeGreaterThan(1);
  });

  it('count_tokens', async () => {
    const counted = await client.messages.countTokens({ model: 'local-echo', system: 'sys', messages: [{ role: 'user', content: 'count me please' }] });
    expect(counted.input_tokens).toBeGreaterThan(3);
  });
});
