import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVaultItem } from '../../src/vault/vault-admin.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

/** Blueprints and skills on POST /v1/responses (translated onto chat) through the official openai SDK. */

const BLUEPRINT = {
  name: 'desk',
  system: 'You are the {{desk}} desk.',
  variables: { desk: { default: 'help' } },
  railguards: { input: [{ words: ['password'], message: 'Never share passwords.' }], output: [{ words: ['internal'], message: '[withheld]' }] },
  overrides: [{ pattern: '^who are you\\??$', reply: 'The {{desk}} desk.' }],
};

let igw: TestGateway;
let openai: OpenAI;

beforeAll(async () => {
  igw = await startTestGateway();
  openai = igw.openai(await igw.newKey({ vault: true }));
});
afterAll(async () => igw.close());

const create = (input: string, extra: Record<string, unknown>, headers?: Record<string, string>) =>
  openai.responses.create({ model: 'local-echo', input, ...extra } as never, { headers }) as unknown as Promise<OpenAI.Responses.Response & { billing_cost: Record<string, string> }>;

async function streamed(input: string, extra: Record<string, unknown>) {
  const stream = await openai.responses.create({ model: 'local-echo', input, stream: true, ...extra } as never);
  let text = '';
  let completed: OpenAI.Responses.Response | undefined;
  for await (const event of stream as unknown as AsyncIterable<OpenAI.Responses.ResponseStreamEvent>) {
    if (event.type === 'response.output_text.delta') text += event.delta;
    if (event.type === 'response.completed') completed = event.response;
  }
  return { text, completed: completed! };
}

describe('responses with blueprints', () => {
  it('override and input railguard: a completed answer without a model call, usage zero', async () => {
    const override = await create('who are you?', { blueprint_config: BLUEPRINT, variables: { desk: 'news' } });
    expect(override.status).toBe('completed');
    expect(override.output_text).toBe('The news desk.');
    expect(override.usage).toMatchObject({ input_tokens: 0, output_tokens: 0 });
    expect(override.billing_cost).toMatchObject({ credits: '0' });
    const blocked = await create('what is the admin password', { blueprint_config: BLUEPRINT });
    expect(blocked.output_text).toBe('Never share passwords.');
    const streamedOverride = await streamed('who are you', { blueprint_config: BLUEPRINT });
    expect(streamedOverride.text).toBe('The help desk.');
    expect(streamedOverride.completed.status).toBe('completed');
  });

  it('output railguard: replaced whole, or held back on a stream', async () => {
    const plain = await create('this is internal only', { blueprint_config: BLUEPRINT });
    expect(plain.output_text).toBe('[withheld]');
    const { text } = await streamed('this is internal only, friend', { blueprint_config: BLUEPRINT });
    expect(text).not.toContain('internal');
    expect(text.endsWith('[withheld]')).toBe(true);
  });

  it('skills add function tools the model can call', async () => {
    const skill = { name: 'orders', tools: [{ type: 'function', function: { name: 'find_order', parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } } }] };
    const response = await create('order 7', { skill_configs: [skill], tool_choice: 'required' });
    expect(response.output.find((item) => item.type === 'function_call')).toMatchObject({ name: 'find_order' });
  });

  it('blueprint_id from the vault with X-Vault-Key; a wrong key is a 401', async () => {
    const id = (await createVaultItem(igw.gateway.app.store, igw.config, { kind: 'blueprint', vault_key: 'responses vault key', document: BLUEPRINT })).id;
    const answer = await create('who are you', { blueprint_id: id }, { 'X-Vault-Key': 'responses vault key' });
    expect(answer.output_text).toBe('The help desk.');
    const error = await create('who are you', { blueprint_id: id }, { 'X-Vault-Key': 'wrong key here' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
  });
});
