import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { createVaultItem } from '../../src/vault/vault-admin.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { postJson, startTestGateway, upstreamConfig, type TestGateway } from '../helpers/gateway.js';
import { storedVaultTexts } from '../helpers/stored-files.js';

/** Blueprints and skills through the official openai SDK: inline and from the vault, every finish reason. */

const VAULT_KEY = 'correct horse battery staple';

const SUPPORT = {
  name: 'support',
  model: 'up-chat',
  system: 'You work for {{company}}. Answer in {{language}}.',
  variables: { company: { required: true }, language: { default: 'English' } },
  params: { temperature: 0.2, max_tokens: 300 },
  railguards: {
    input: [{ words: ['bomb'], message: 'I cannot help with that, {{company}} policy.' }],
    output: [{ words: ['confidential'], message: 'The answer was withheld.' }],
  },
  overrides: [{ pattern: '^\\s*opening hours\\??\\s*$', reply: '{{company}} is open 9 to 5.' }],
};

const WEATHER = {
  name: 'weather',
  instructions: 'Call get_weather for weather questions.',
  tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }],
};

type Extra = { environment_impact: Record<string, unknown>; billing_cost: Record<string, unknown> };

let upstream: FakeUpstream;
let upstreamAnswer = 'fine answer';
let igw: TestGateway;
let vaultKeyApi: string;
let openai: OpenAI;

beforeAll(async () => {
  upstream = await startFakeUpstream((request) => {
    const body = request.body as { stream?: boolean };
    const base = { id: 'chatcmpl-up', created: 1_700_000_000, model: 'real-model-1' };
    if (body.stream === true) {
      const words = upstreamAnswer.split(/(?<= )/);
      return {
        sse: [
          ...words.map((word, index) => JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: index === 0 ? { role: 'assistant', content: word } : { content: word }, finish_reason: null }] })),
          JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
          JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 30, completion_tokens: 10, total_tokens: 40 } }),
        ],
      };
    }
    return { json: { ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: upstreamAnswer }, finish_reason: 'stop' }], usage: { prompt_tokens: 30, completion_tokens: 10, total_tokens: 40 } } };
  });
  igw = await startTestGateway(upstreamConfig(upstream.url));
  openai = igw.openai();
  vaultKeyApi = await igw.newKey({ name: 'vault', vault: true });
});
afterAll(async () => {
  await igw.close();
  await upstream.close();
});
beforeEach(() => {
  upstreamAnswer = 'fine answer';
});

const lastUpstreamBody = () => upstream.requests.at(-1)!.body as Record<string, any>;

async function create(body: Record<string, unknown>, options: { headers?: Record<string, string>; client?: OpenAI } = {}) {
  return (options.client ?? openai).chat.completions.create({ model: 'up-chat', messages: [{ role: 'user', content: 'hello' }], ...body } as never, { headers: options.headers }) as unknown as Promise<OpenAI.Chat.ChatCompletion & Extra>;
}

async function failure(run: Promise<unknown>): Promise<{ status: number; error: { code: string; message: string; details?: Record<string, unknown> } }> {
  const error = (await run.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (caught: unknown) => caught,
  )) as InstanceType<typeof OpenAI.APIError>;
  expect(error).toBeInstanceOf(OpenAI.APIError);
  return { status: error.status!, error: (error.error as { error?: never })?.error ?? (error.error as never) };
}

async function streamText(body: Record<string, unknown>, headers?: Record<string, string>) {
  const stream = await openai.chat.completions.create({ model: 'up-chat', messages: [{ role: 'user', content: 'hello' }], stream: true, stream_options: { include_usage: true }, ...body } as never, { headers });
  let text = '';
  const finishes: string[] = [];
  let last: Record<string, any> | undefined;
  for await (const chunk of stream as unknown as AsyncIterable<OpenAI.Chat.ChatCompletionChunk>) {
    last = chunk as never;
    for (const choice of chunk.choices) {
      text += choice.delta.content ?? '';
      if (choice.finish_reason !== null) finishes.push(choice.finish_reason);
    }
  }
  return { text, finishes, last: last! };
}

describe('inline blueprint_config', () => {
  it('renders the system template with request variables over defaults, applies params, calls the model', async () => {
    const completion = await create({ blueprint_config: SUPPORT, variables: { company: 'Initech' } });
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.choices[0]!.message.content).toBe('fine answer');
    const sent = lastUpstreamBody();
    expect(sent.messages[0]).toEqual({ role: 'system', content: 'You work for Initech. Answer in English.' });
    expect(sent).toMatchObject({ temperature: 0.2, max_tokens: 300 });

    await create({ blueprint_config: SUPPORT, variables: { company: 'Initech', language: 'French' }, temperature: 0.9 });
    expect(lastUpstreamBody().messages[0].content).toBe('You work for Initech. Answer in French.');
    expect(lastUpstreamBody().temperature).toBe(0.9);
  });

  it('the blueprint model is the default when the request names none (raw HTTP)', async () => {
    const response = await postJson(`${igw.url}/v1/chat/completions`, igw.key, { messages: [{ role: 'user', content: 'hi' }], blueprint_config: SUPPORT, variables: { company: 'A' } });
    expect(response.status).toBe(200);
    expect(response.json.model).toBe('up-chat');
    const missing = await postJson(`${igw.url}/v1/chat/completions`, igw.key, { messages: [{ role: 'user', content: 'hi' }] });
    expect(missing.status).toBe(400);
    expect(missing.json.error).toMatchObject({ code: 'VALIDATION_4002', details: { field: 'model' } });
  });

  it('a missing required variable is VALIDATION_4002 naming it, before any upstream call', async () => {
    const before = upstream.requests.length;
    const { status, error } = await failure(create({ blueprint_config: SUPPORT }));
    expect(status).toBe(400);
    expect(error.code).toBe('VALIDATION_4002');
    expect(error.details).toMatchObject({ field: 'variables.company' });
    expect(error.message).toContain('"company"');
    expect(upstream.requests.length).toBe(before);
  });

  it('an invalid inline document names the field inside it', async () => {
    const { status, error } = await failure(create({ blueprint_config: { ...SUPPORT, railguards: { input: [{ pattern: '(', message: 'm' }] } }, variables: { company: 'A' } }));
    expect(status).toBe(400);
    expect(error).toMatchObject({ code: 'VALIDATION_4005', details: { field: 'blueprint_config.railguards.input[0].pattern' } });
  });

  it('override: finish_reason blueprint_override, no model call, usage and cost zero, impact present', async () => {
    const before = upstream.requests.length;
    const completion = await create({ blueprint_config: SUPPORT, variables: { company: 'Initech' }, messages: [{ role: 'user', content: 'Opening hours?' }] });
    expect(upstream.requests.length).toBe(before);
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('up-chat');
    expect(completion.choices[0]).toMatchObject({ index: 0, finish_reason: 'blueprint_override', message: { role: 'assistant', content: 'Initech is open 9 to 5.' } });
    expect(completion.usage).toMatchObject({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
    expect(completion.billing_cost).toMatchObject({ energy: '0', credits: '0' });
    expect(completion.environment_impact).toMatchObject({ energy_kwh: 0, carbon_g_co2: 0, provider_id: 'up' });
  });

  it('input railguard: finish_reason blocked with the rule message, no model call, nothing billed', async () => {
    const before = upstream.requests.length;
    const completion = await create({ blueprint_config: SUPPORT, variables: { company: 'Initech' }, messages: [{ role: 'user', content: 'how do I build a BOMB' }] });
    expect(upstream.requests.length).toBe(before);
    expect(completion.choices[0]).toMatchObject({ finish_reason: 'blocked', message: { content: 'I cannot help with that, Initech policy.' } });
    expect(completion.usage!.total_tokens).toBe(0);
    expect(completion.billing_cost).toMatchObject({ credits: '0' });
  });

  it('input railguard and override on a stream: the same answer as chunks, usage last', async () => {
    const blocked = await streamText({ blueprint_config: SUPPORT, variables: { company: 'Initech' }, messages: [{ role: 'user', content: 'bomb please' }] });
    expect(blocked).toMatchObject({ text: 'I cannot help with that, Initech policy.', finishes: ['blocked'] });
    expect(blocked.last.usage).toMatchObject({ total_tokens: 0 });
    expect(blocked.last.billing_cost).toMatchObject({ credits: '0' });
    const override = await streamText({ blueprint_config: SUPPORT, variables: { company: 'Initech' }, messages: [{ role: 'user', content: 'opening hours' }] });
    expect(override).toMatchObject({ text: 'Initech is open 9 to 5.', finishes: ['blueprint_override'] });
  });

  it('output railguard: the answer is replaced and reported blocked; the model call is billed', async () => {
    upstreamAnswer = 'this is Confidential material';
    const completion = await create({ blueprint_config: SUPPORT, variables: { company: 'Initech' } });
    expect(completion.choices[0]).toMatchObject({ finish_reason: 'blocked', message: { content: 'The answer was withheld.' } });
    expect(completion.usage!.total_tokens).toBe(40);
    expect(Number(completion.billing_cost.credits)).toBeGreaterThan(0);
  });

  it('output railguard on a stream: clean text before the match only, then the message with finish blocked', async () => {
    upstreamAnswer = 'the plan is confidential and more words follow';
    const { text, finishes, last } = await streamText({ blueprint_config: SUPPORT, variables: { company: 'Initech' } });
    expect(finishes).toEqual(['blocked']);
    expect(text.endsWith('The answer was withheld.')).toBe(true);
    const released = text.slice(0, -'The answer was withheld.'.length);
    expect('the plan is '.startsWith(released)).toBe(true);
    expect(text.toLowerCase()).not.toContain('confidential');
    expect(text).not.toContain('more words');
    expect(last.usage.total_tokens).toBeGreaterThan(0);
  });

  it('output railguard on a stream: clean answers arrive whole', async () => {
    upstreamAnswer = 'nothing to hide here at all';
    const { text, finishes } = await streamText({ blueprint_config: SUPPORT, variables: { company: 'Initech' } });
    expect(text).toBe('nothing to hide here at all');
    expect(finishes).toEqual(['stop']);
  });

  it('output railguard with the built-in echo model, stream and not', async () => {
    const blueprint = { name: 'echo', railguards: { output: [{ pattern: '\\d{4}-\\d{4}', max_match_chars: 9, message: '[number removed]' }] } };
    const plain = await create({ model: 'local-echo', blueprint_config: blueprint, messages: [{ role: 'user', content: 'call 1234-5678 now' }] });
    expect(plain.choices[0]).toMatchObject({ finish_reason: 'blocked', message: { content: '[number removed]' } });
    const streamed = await streamText({ model: 'local-echo', blueprint_config: blueprint, messages: [{ role: 'user', content: 'call 1234-5678 now' }] });
    expect(streamed.finishes).toEqual(['blocked']);
    expect(streamed.text).not.toMatch(/\d/);
  });
});

describe('inline skill_configs', () => {
  it('adds instructions to the system message and tools after the request tools', async () => {
    const own = { type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } };
    await create({ blueprint_config: SUPPORT, variables: { company: 'Initech' }, skill_configs: [WEATHER], tools: [own] });
    const sent = lastUpstreamBody();
    expect(sent.messages[0].content).toBe('You work for Initech. Answer in English.\n\nCall get_weather for weather questions.');
    expect(sent.tools.map((tool: any) => tool.function.name)).toEqual(['lookup', 'get_weather']);
  });

  it('tool_choice may name a skill tool', async () => {
    await create({ skill_configs: [WEATHER], tool_choice: { type: 'function', function: { name: 'get_weather' } } });
    expect(lastUpstreamBody().tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } });
  });

  it('a tool name clash is a 400 naming both sides', async () => {
    const { status, error } = await failure(create({ skill_configs: [WEATHER], tools: [{ type: 'function', function: { name: 'get_weather' } }] }));
    expect(status).toBe(400);
    expect(error.code).toBe('VALIDATION_4005');
    expect(error.details).toMatchObject({ field: 'skill_configs[0].tools[0].function.name' });
    expect(error.message).toMatch(/get_weather.*skill_configs\[0\].*request/);
  });
});

describe('vault: blueprint_id and skill_ids', () => {
  let blueprintId: string;
  let skillId: string;
  beforeAll(async () => {
    const store = igw.gateway.app.store;
    blueprintId = (await createVaultItem(store, igw.config, { kind: 'blueprint', vault_key: VAULT_KEY, document: SUPPORT })).id;
    skillId = (await createVaultItem(store, igw.config, { kind: 'skill', vault_key: VAULT_KEY, document: WEATHER })).id;
  });

  it('the right X-Vault-Key loads blueprint and skills', async () => {
    const client = igw.openai(vaultKeyApi);
    const completion = await create({ blueprint_id: blueprintId, skill_ids: [skillId], variables: { company: 'Vaulted' } }, { client, headers: { 'X-Vault-Key': VAULT_KEY } });
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    const sent = lastUpstreamBody();
    expect(sent.messages[0].content).toBe('You work for Vaulted. Answer in English.\n\nCall get_weather for weather questions.');
    expect(sent.tools.map((tool: any) => tool.function.name)).toEqual(['get_weather']);
    const override = await create({ blueprint_id: blueprintId, variables: { company: 'Vaulted' }, messages: [{ role: 'user', content: 'opening hours?' }] }, { client, headers: { 'X-Vault-Key': VAULT_KEY } });
    expect(override.choices[0]!.finish_reason).toBe('blueprint_override');
  });

  it.each([
    ['missing X-Vault-Key', undefined, 401, 'AUTH_1007', /X-Vault-Key/],
    ['wrong X-Vault-Key', 'not the key', 401, 'AUTH_1008', /does not open the vault/],
  ])('%s → %s %s, nothing sent upstream', async (_name, header, status, code, message) => {
    const before = upstream.requests.length;
    const result = await failure(create({ blueprint_id: blueprintId, variables: { company: 'A' } }, { client: igw.openai(vaultKeyApi), ...(header === undefined ? {} : { headers: { 'X-Vault-Key': header } }) }));
    expect(result.status).toBe(status);
    expect(result.error.code).toBe(code);
    expect(result.error.message).toMatch(message);
    expect(upstream.requests.length).toBe(before);
  });

  it('skill_ids need the vault key as well', async () => {
    const result = await failure(create({ skill_ids: [skillId] }, { client: igw.openai(vaultKeyApi) }));
    expect(result).toMatchObject({ status: 401, error: { code: 'AUTH_1007', details: { field: 'skill_ids[0]' } } });
  });

  it('an API key without vault access gets AUTH_1015, even with the right vault key', async () => {
    const result = await failure(create({ blueprint_id: blueprintId, variables: { company: 'A' } }, { headers: { 'X-Vault-Key': VAULT_KEY } }));
    expect(result).toMatchObject({ status: 403, error: { code: 'AUTH_1015', details: { required: 'vault_access' } } });
  });

  it('an unknown id is RESOURCE_5404', async () => {
    const result = await failure(create({ blueprint_id: '00000000-0000-4000-8000-000000000000' }, { client: igw.openai(vaultKeyApi), headers: { 'X-Vault-Key': VAULT_KEY } }));
    expect(result).toMatchObject({ status: 404, error: { code: 'RESOURCE_5404', details: { field: 'blueprint_id' } } });
  });

  it('blueprint_config wins over blueprint_id, which is then not loaded (no vault key needed)', async () => {
    const completion = await create({ blueprint_id: blueprintId, blueprint_config: { name: 'inline', system: 'Inline wins.' } });
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(lastUpstreamBody().messages[0]).toEqual({ role: 'system', content: 'Inline wins.' });
  });

  it('the vault file (or its row in team mode) holds no readable document', async () => {
    const texts = await storedVaultTexts(igw);
    expect(texts.length).toBe(1);
    const text = texts[0]!;
    expect(text).not.toContain('support');
    expect(text).not.toContain('get_weather');
    expect(text).toContain('scrypt');
  });
});
