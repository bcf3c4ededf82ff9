import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startTestGateway, type TestGateway } from '../helpers/gateway.js';

/** Every bad-input path of the HTTP surface returns the spec's envelope and code. */
describe('HTTP surface errors', () => {
  let igw: TestGateway;
  beforeAll(async () => {
    igw = await startTestGateway({
      server: { max_body_bytes: 1024 * 1024, cors_origins: ['http://allowed.example'] },
      plans: { tiny: { benefits: [], requests_per_minute: 2 } },
      models: {
        'secret-model': { type: 'chat', advanced: true, routes: [{ provider: 'local', upstream_model: 'local-echo' }] },
      },
    });
  });
  afterAll(async () => igw.close());

  const chat = (extra: Record<string, unknown> = {}) => ({ model: 'local-echo', messages: [{ role: 'user', content: 'hi' }], ...extra });

  it('x-request-id and rate-limit headers on every authenticated response', async () => {
    const response = await postJson(`${igw.url}/v1/chat/completions`, igw.key, chat());
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    expect(response.headers.get('x-ratelimit-limit-requests')).toBe('600');
    expect(Number(response.headers.get('x-ratelimit-remaining-requests'))).toBeLessThan(600);
    expect(response.headers.get('x-ratelimit-reset-requests')).toMatch(/^\d+(ms|s|m\d+s)$/);
  });

  it.each([
    ['no key', undefined, {}, 401, 'AUTH_1007'],
    ['malformed key', 'sk-nope', {}, 401, 'AUTH_1008'],
    ['unknown well-formed key', `sk-svc-${'a'.repeat(128)}`, {}, 401, 'AUTH_1008'],
  ])('%s → %s', async (_name, key, headers, status, code) => {
    const response = await postJson(`${igw.url}/v1/chat/completions`, key, chat(), headers);
    expect(response.status).toBe(status);
    expect(response.json.error.code).toBe(code);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('x-api-key works like Bearer', async () => {
    const response = await postJson(`${igw.url}/v1/chat/completions`, undefined, chat(), { 'x-api-key': igw.key });
    expect(response.status).toBe(200);
  });

  it('revoked and expired keys → AUTH_1008', async () => {
    const { revokeKey } = await import('../../src/admin/keys-admin.js');
    const { createKey } = await import('../../src/admin/keys-admin.js');
    const created = await createKey(igw.gateway.app.store, igw.config, { name: 'short' });
    expect((await postJson(`${igw.url}/v1/chat/completions`, created.key, chat())).status).toBe(200);
    await revokeKey(igw.gateway.app.store, created.id);
    expect((await postJson(`${igw.url}/v1/chat/completions`, created.key, chat())).json.error.code).toBe('AUTH_1008');
    const expired = await createKey(igw.gateway.app.store, igw.config, { expiresIn: '1s' }, Math.floor(Date.now() / 1000) - 10);
    expect((await postJson(`${igw.url}/v1/chat/completions`, expired.key, chat())).json.error.code).toBe('AUTH_1008');
  });

  it('missing scope → 403 AUTH_1015 with details.required_scope', async () => {
    const key = await igw.newKey({ scopes: ['inference.models'] });
    const response = await postJson(`${igw.url}/v1/chat/completions`, key, chat());
    expect(response.status).toBe(403);
    expect(response.json.error).toMatchObject({ code: 'AUTH_1015', details: { required_scope: 'inference.chat' } });
    const wildcard = await igw.newKey({ scopes: ['inference.*'] });
    expect((await postJson(`${igw.url}/v1/chat/completions`, wildcard, chat())).status).toBe(200);
  });

  it('unknown path → 404, wrong method → 405 with Allow, both with the envelope', async () => {
    const missing = await fetch(`${igw.url}/v1/nope`, { headers: { authorization: `Bearer ${igw.key}` } });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error.code).toBe('RESOURCE_5404');
    const wrong = await fetch(`${igw.url}/v1/chat/completions`, { headers: { authorization: `Bearer ${igw.key}` } });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
    expect(((await wrong.json()) as any).error.code).toBe('RESOURCE_5405');
  });

  it.each([
    ['malformed JSON', '{"model": ', 'VALIDATION_4005', 'body'],
    ['JSON array body', '[1,2]', 'VALIDATION_4005', 'body'],
    ['missing model', { messages: [{ role: 'user', content: 'x' }] }, 'VALIDATION_4002', 'model'],
    ['missing messages', { model: 'local-echo' }, 'VALIDATION_4002', 'messages'],
    ['missing role', { model: 'local-echo', messages: [{ content: 'x' }] }, 'VALIDATION_4002', 'messages[0].role'],
    ['temperature out of range', { model: 'local-echo', messages: [{ role: 'user', content: 'x' }], temperature: 2.5 }, 'VALIDATION_4005', 'temperature'],
    ['n out of range', { model: 'local-echo', messages: [{ role: 'user', content: 'x' }], n: 11 }, 'VALIDATION_4005', 'n'],
    ['top_logprobs out of range', { model: 'local-echo', messages: [{ role: 'user', content: 'x' }], logprobs: true, top_logprobs: 21 }, 'VALIDATION_4005', 'top_logprobs'],
    ['temperature and top_p', { model: 'local-echo', messages: [{ role: 'user', content: 'x' }], temperature: 0.5, top_p: 0.5 }, 'VALIDATION_4005', 'top_p'],
    ['penalty out of range', { model: 'local-echo', messages: [{ role: 'user', content: 'x' }], presence_penalty: -3 }, 'VALIDATION_4005', 'presence_penalty'],
  ])('chat: %s → 400 %s', async (_name, body, code, field) => {
    const response = await postJson(`${igw.url}/v1/chat/completions`, igw.key, body);
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe(code);
    expect(response.json.error.details.field).toBe(field);
  });

  it('chat: an unknown parameter (DESIGN §5) is dropped on a translated call and named, not refused (server.strict_params refuses it)', async () => {
    const response = await postJson(`${igw.url}/v1/chat/completions`, igw.key, { model: 'local-echo', messages: [{ role: 'user', content: 'x' }], temprature: 1 });
    expect(response.status).toBe(200);
    expect(response.headers.get('igw-ignored-params')).toBe('temprature');
  });

  it.each([
    ['unknown model', 'nope', 404, 'INFERENCE_3001'],
    ['invalid flavor suffix', 'local-echo:turbo', 404, 'INFERENCE_3001'],
    ['advanced model on a plan without advanced_models', 'secret-model', 403, 'VALIDATION_4003'],
  ])('chat: %s', async (_name, model, status, code) => {
    const { createAccount } = await import('../../src/admin/accounts-admin.js');
    if (igw.gateway.app.store.accounts.get('freebie') === undefined) await createAccount(igw.gateway.app.store, igw.config, 'freebie', 'free');
    const key = await igw.newKey({ account: 'freebie' });
    const response = await postJson(`${igw.url}/v1/chat/completions`, key, chat({ model }));
    expect(response.status).toBe(status);
    expect(response.json.error.code).toBe(code);
    if (code === 'VALIDATION_4003') expect(response.json.error.message).toContain('developer');
  });

  it('advanced models are hidden from plans without advanced_models and listed for plans with it', async () => {
    const { createAccount } = await import('../../src/admin/accounts-admin.js');
    if (igw.gateway.app.store.accounts.get('freebie2') === undefined) await createAccount(igw.gateway.app.store, igw.config, 'freebie2', 'free');
    const freeKey = await igw.newKey({ account: 'freebie2' });
    const list = async (key: string) => ((await (await fetch(`${igw.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).json()) as any).data.map((model: any) => model.id);
    expect(await list(freeKey)).not.toContain('secret-model');
    expect(await list(igw.key)).toContain('secret-model');
    const retrieve = await fetch(`${igw.url}/v1/models/secret-model`, { headers: { authorization: `Bearer ${freeKey}` } });
    expect(retrieve.status).toBe(403);
    const unknown = await fetch(`${igw.url}/v1/models/nope`, { headers: { authorization: `Bearer ${igw.key}` } });
    expect(((await unknown.json()) as any).error.code).toBe('INFERENCE_3001');
  });

  it('body over the limit → 413 with the envelope, connection closed', async () => {
    const response = await postJson(`${igw.url}/v1/chat/completions`, igw.key, chat({ user: 'x'.repeat(2 * 1024 * 1024) }));
    expect(response.status).toBe(413);
    expect(response.json.error.code).toBe('VALIDATION_4013');
  });

  it('a streamed oversized body without content-length is cut off with 413 too', async () => {
    const url = new URL(`${igw.url}/v1/chat/completions`);
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { authorization: `Bearer ${igw.key}`, 'transfer-encoding': 'chunked' } }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      // Once the gateway answers 413 and closes, further writes may fail: that is the point.
      request.on('error', () => undefined);
      const piece = 'x'.repeat(64 * 1024);
      for (let index = 0; index < 40; index += 1) request.write(piece);
      request.end();
      void reject;
    });
    expect(status).toBe(413);
  });

  it('Host header check: a non-loopback Host is refused (DNS rebinding)', async () => {
    const url = new URL(igw.url);
    const status = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpRequest({ host: url.hostname, port: url.port, path: '/v1/models', headers: { host: 'evil.example:8787', authorization: `Bearer ${igw.key}` } }, (response) => {
        let body = '';
        response.on('data', (chunk) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      });
      request.on('error', reject);
      request.end();
    });
    expect(status.status).toBe(403);
    expect(JSON.parse(status.body).error.code).toBe('AUTH_1040');
  });

  it('CORS: unknown origins refused, configured origins allowed with preflight', async () => {
    const refused = await fetch(`${igw.url}/v1/models`, { headers: { authorization: `Bearer ${igw.key}`, origin: 'http://evil.example' } });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as any).error.code).toBe('AUTH_1041');
    const allowed = await fetch(`${igw.url}/v1/models`, { headers: { authorization: `Bearer ${igw.key}`, origin: 'http://allowed.example' } });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://allowed.example');
    const preflight = await fetch(`${igw.url}/v1/chat/completions`, { method: 'OPTIONS', headers: { origin: 'http://allowed.example', 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(204);
  });

  it('rate limit per key per plan: 429 AUTH_1028 with Retry-After', async () => {
    const { createAccount } = await import('../../src/admin/accounts-admin.js');
    await createAccount(igw.gateway.app.store, igw.config, 'limited', 'tiny');
    const key = await igw.newKey({ account: 'limited' });
    expect((await postJson(`${igw.url}/v1/chat/completions`, key, chat())).status).toBe(200);
    expect((await postJson(`${igw.url}/v1/chat/completions`, key, chat())).status).toBe(200);
    const limited = await postJson(`${igw.url}/v1/chat/completions`, key, chat());
    expect(limited.status).toBe(429);
    expect(limited.json.error.code).toBe('AUTH_1028');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('x-ratelimit-remaining-requests')).toBe('0');
  });

  it.each([
    ['empty string', { model: 'local-embed', input: '' }, 'VALIDATION_4005', 'input'],
    ['empty array', { model: 'local-embed', input: [] }, 'VALIDATION_4005', 'input'],
    ['missing input', { model: 'local-embed' }, 'VALIDATION_4002', 'input'],
    ['dimensions too large', { model: 'local-embed', input: 'x', dimensions: 4096 }, 'VALIDATION_4005', 'dimensions'],
    ['bad encoding_format', { model: 'local-embed', input: 'x', encoding_format: 'hex' }, 'VALIDATION_4005', 'encoding_format'],
    ['chat model on embeddings', { model: 'local-echo', input: 'x' }, 'VALIDATION_4005', 'model'],
  ])('embeddings: %s', async (_name, body, code, field) => {
    const response = await postJson(`${igw.url}/v1/embeddings`, igw.key, body);
    expect(response.status).toBe(400);
    expect(response.json.error).toMatchObject({ code, details: { field } });
  });

  it('embeddings: an input over the context window → INFERENCE_3207', async () => {
    const long = Array.from({ length: 9000 }, (_, index) => `w${index}`).join(' ');
    const response = await postJson(`${igw.url}/v1/embeddings`, igw.key, { model: 'local-embed', input: ['short', long] });
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('INFERENCE_3207');
    expect(response.json.error.details).toMatchObject({ context_length: 8192, index: 1 });
  });

  it.each([
    ['missing query', { model: 'local-rerank', documents: ['a'] }, 'VALIDATION_4002', 'query'],
    ['missing documents', { model: 'local-rerank', query: 'q' }, 'VALIDATION_4002', 'documents'],
    ['empty documents', { model: 'local-rerank', query: 'q', documents: [] }, 'VALIDATION_4005', 'documents'],
    ['bad top_n', { model: 'local-rerank', query: 'q', documents: ['a'], top_n: 0 }, 'VALIDATION_4005', 'top_n'],
  ])('rerank: %s', async (_name, body, code, field) => {
    const response = await postJson(`${igw.url}/v1/rerank`, igw.key, body);
    expect(response.status).toBe(400);
    expect(response.json.error).toMatchObject({ code, details: { field } });
  });

  it.each([
    ['missing prompt', { model: 'local-image' }, 'VALIDATION_4002', 'prompt'],
    ['n too big', { model: 'local-image', prompt: 'p', n: 11 }, 'VALIDATION_4005', 'n'],
    ['url response format', { model: 'local-image', prompt: 'p', response_format: 'url' }, 'VALIDATION_4005', 'response_format'],
    ['unsupported size', { model: 'local-image', prompt: 'p', size: '999x999' }, 'VALIDATION_4005', 'size'],
    ['bad quality', { model: 'local-image', prompt: 'p', quality: 'ultra' }, 'VALIDATION_4005', 'quality'],
  ])('images: %s', async (_name, body, code, field) => {
    const response = await postJson(`${igw.url}/v1/images/generations`, igw.key, body);
    expect(response.status).toBe(400);
    expect(response.json.error).toMatchObject({ code, details: { field } });
  });

  it('images need studio_access → VALIDATION_4003', async () => {
    const { createAccount } = await import('../../src/admin/accounts-admin.js');
    await createAccount(igw.gateway.app.store, igw.config, 'nostudio', 'free');
    const key = await igw.newKey({ account: 'nostudio' });
    const response = await postJson(`${igw.url}/v1/images/generations`, key, { prompt: 'a fox' });
    expect(response.status).toBe(403);
    expect(response.json.error.code).toBe('VALIDATION_4003');
  });

  it('images: default model is the first image model', async () => {
    const response = await postJson(`${igw.url}/v1/images/generations`, igw.key, { prompt: 'a fox', size: '256x256' });
    expect(response.status).toBe(200);
    expect(response.json.data).toHaveLength(1);
  });

  it('capabilities: tools on a model without function calling → INFERENCE_3202; images on non-vision → INFERENCE_3201', async () => {
    const tools = await postJson(`${igw.url}/v1/chat/completions`, igw.key, chat({ model: 'secret-model', tools: [{ type: 'function', function: { name: 'f' } }] }));
    expect(tools.json.error.code).toBe('INFERENCE_3202');
    const image = await postJson(`${igw.url}/v1/chat/completions`, igw.key, {
      model: 'local-echo',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'what is this' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] }],
    });
    expect(image.json.error.code).toBe('INFERENCE_3201');
  });

  it('context window: a prompt over the model context → INFERENCE_3207 with counts', async () => {
    const long = Array.from({ length: 140_000 }, (_, index) => `w${index % 977}`).join(' ');
    const response = await postJson(`${igw.url}/v1/chat/completions`, igw.key, chat({ messages: [{ role: 'user', content: long }] }));
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('INFERENCE_3207');
    expect(response.json.error.details.context_length).toBe(131072);
    expect(response.json.error.details.input_tokens).toBeGreaterThan(131072);
  });
});
