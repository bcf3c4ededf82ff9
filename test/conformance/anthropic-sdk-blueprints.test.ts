import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVaultItem } from '../../src/vault/vault-admin.js';
import { startFakeUpstream } from '../helpers/fake-upstream.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

/** Blueprints and skills on POST /v1/messages (translated onto chat) through the official Anthropic SDK. */

const VAULT_KEY = 'messages vault passphrase';
const BLUEPRINT = {
  name: 'guarded',
  system: 'Speak like {{persona}}.',
  variables: { persona: { default: 'a pirate' } },
  railguards: { input: [{ words: ['forbidden'], message: 'Not on this ship.' }], output: [{ words: ['treasure'], message: '[redacted]' }] },
  overrides: [{ words: ['ahoy'], reply: 'Ahoy, {{persona}}!' }],
};

let igw: TestGateway;
let client: Anthropic;

beforeAll(async () => {
  igw = await startTestGateway();
  client = igw.anthropic(await igw.newKey({ vault: true }));
});
afterAll(async () => igw.close());

function create(text: string, extra: Record<string, unknown>, headers?: Record<string, string>) {
  return client.messages.create({ model: 'local-echo', max_tokens: 200, messages: [{ role: 'user', content: text }], ...extra } as never, { headers }) as unknown as Promise<Anthropic.Message & { billing_cost: Record<string, string> }>;
}

async function streamed(text: string, extra: Record<string, unknown>) {
  const stream = client.messages.stream({ model: 'local-echo', max_tokens: 200, messages: [{ role: 'user', content: text }], ...extra } as never);
  const deltas: string[] = [];
  stream.on('text', (delta) => deltas.push(delta));
  const final = await stream.finalMessage();
  return { final, text: deltas.join('') };
}

describe('messages with blueprint_config', () => {
  it('override and input railguard answer without a model call, usage zero, end_turn', async () => {
    const override = await create('ahoy there', { blueprint_config: BLUEPRINT, variables: { persona: 'captain' } });
    expect(override.content).toEqual([{ type: 'text', text: 'Ahoy, captain!' }]);
    expect(override.stop_reason).toBe('end_turn');
    expect(override.usage).toMatchObject({ input_tokens: 0, output_tokens: 0 });
    expect(override.billing_cost).toMatchObject({ credits: '0' });
    const blocked = await create('the forbidden map', { blueprint_config: BLUEPRINT });
    expect(blocked.content).toEqual([{ type: 'text', text: 'Not on this ship.' }]);
  });

  it('output railguard replaces the answer; streams never show the matching word', async () => {
    const plain = await create('where is the treasure', { blueprint_config: BLUEPRINT });
    expect(plain.content).toEqual([{ type: 'text', text: '[redacted]' }]);
    const { final, text } = await streamed('where is the treasure buried', { blueprint_config: BLUEPRINT });
    expect(text).not.toContain('treasure');
    expect(text.endsWith('[redacted]')).toBe(true);
    expect(final.stop_reason).toBe('end_turn');
    const clean = await streamed('where is the ship', { blueprint_config: BLUEPRINT });
    expect(clean.text).toBe('where is the ship');
  });

  it('streamed override', async () => {
    const { final, text } = await streamed('ahoy', { blueprint_config: BLUEPRINT });
    expect(text).toBe('Ahoy, a pirate!');
    expect(final.usage.output_tokens).toBe(0);
  });

  it('skills add tools: tool_choice any makes the echo model call the skill tool', async () => {
    const skill = { name: 'lookup', tools: [{ type: 'function', function: { name: 'lookup_order', parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } } }] };
    const message = await create('order 42', { skill_configs: [skill], tool_choice: { type: 'any' } });
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content.find((block) => block.type === 'tool_use')).toMatchObject({ name: 'lookup_order' });
  });

  it('a missing required variable is a 400 naming it', async () => {
    const error = await create('hi', { blueprint_config: { name: 'x', system: '{{who}}', variables: { who: { required: true } } } }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).message).toContain('variables.who');
  });
});

describe('messages with blueprint_id', () => {
  it('loads from the vault with X-Vault-Key; without it: 401', async () => {
    const id = (await createVaultItem(igw.gateway.app.store, igw.config, { kind: 'blueprint', vault_key: VAULT_KEY, document: BLUEPRINT })).id;
    const answer = await create('ahoy', { blueprint_id: id }, { 'X-Vault-Key': VAULT_KEY });
    expect(answer.content).toEqual([{ type: 'text', text: 'Ahoy, a pirate!' }]);
    const error = await create('ahoy', { blueprint_id: id }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
  });
});

describe('messages with a blueprint to a provider that speaks the Messages API', () => {
  it('goes through the hub: the shaped system and tools reach the upstream, the blueprint fields do not', async () => {
    const upstream = await startFakeUpstream(() => ({
      json: { id: 'msg_up', type: 'message', role: 'assistant', model: 'claude-x', content: [{ type: 'text', text: 'arr' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 5, output_tokens: 1 } },
    }));
    const gateway = await startTestGateway({
      providers: { claude: { kind: 'anthropic', base_url: upstream.url, api_key: 'sk-ant-x', timeout_ms: 2000, location: 'US', pue: 1.1, renewable_percent: 50, carbon_g_per_kwh: 300, water_l_per_kwh: 1 } },
      models: { 'claude-chat': { type: 'chat', owned_by: 'anthropic', context_length: 200_000, max_output_tokens: 4096, capabilities: { streaming: true, function_calling: true }, routes: [{ provider: 'claude', upstream_model: 'claude-x' }] } },
    });
    try {
      const skill = { name: 'nav', instructions: 'Use chart_course.', tools: [{ type: 'function', function: { name: 'chart_course', parameters: { type: 'object' } } }] };
      const answer = (await gateway.anthropic().messages.create({ model: 'claude-chat', max_tokens: 50, system: 'Client system.', messages: [{ role: 'user', content: 'sail' }], blueprint_config: BLUEPRINT, skill_configs: [skill] } as never)) as unknown as Anthropic.Message;
      expect(answer.content).toEqual([{ type: 'text', text: 'arr' }]);
      const sent = upstream.requests[0]!.body as Record<string, unknown>;
      expect(JSON.stringify(sent.system)).toContain('Speak like a pirate.');
      expect(JSON.stringify(sent.system)).toContain('Use chart_course.');
      expect(JSON.stringify(sent.system)).toContain('Client system.');
      expect((sent.tools as Array<{ name: string }>).map((tool) => tool.name)).toEqual(['chart_course']);
      expect(Object.keys(sent).filter((key) => /blueprint|skill|variables/.test(key))).toEqual([]);
    } finally {
      await gateway.close();
      await upstream.close();
    }
  });
});
