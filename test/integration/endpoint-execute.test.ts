import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate, type Principal } from '../../src/auth/authenticate.js';
import type { BatchEndpoint } from '../../src/batches/batch-record.js';
import { batchExecutes } from '../../src/endpoints/batch-executes.js';
import type { Execute } from '../../src/endpoints/shared/execute.js';
import type { RequestLogEntry } from '../../src/store/request-log.js';
import { echoCompletion } from '../helpers/batch-cli.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { postJson, startTestGateway, upstreamConfig, type TestGateway } from '../helpers/gateway.js';

/**
 * Contract of each batchable endpoint's `execute(input, principal, signal)` (issue 18): for the
 * same body it answers what the HTTP endpoint answers — status and JSON body, success and error
 * envelopes — and writes one request-log line like a live request, with no HTTP objects.
 */
describe('endpoint execute: the HTTP answer without HTTP', () => {
  let upstream: FakeUpstream;
  let igw: TestGateway;
  let executes: Record<BatchEndpoint, Execute>;
  let principal: Principal;

  beforeAll(async () => {
    upstream = await startFakeUpstream((request) => {
      if (request.path.endsWith('/embeddings')) {
        const input = request.body.input as string[];
        return { json: { object: 'list', data: input.map((text, index) => ({ object: 'embedding', index, embedding: [text.length, index, 0.25] })), model: 'real-embed-1', usage: { prompt_tokens: 4, total_tokens: 4 } } };
      }
      if (request.path.endsWith('/images/generations')) return { json: { created: 1, data: [{ b64_json: Buffer.from('png').toString('base64') }] } };
      const content = request.body?.messages?.at(-1)?.content;
      if (content === 'fail') return { status: 400, json: { error: { message: 'refused upstream', type: 'invalid_request_error' } } };
      return { json: echoCompletion(content) };
    });
    const config = upstreamConfig(upstream.url);
    (config['models'] as Record<string, unknown>)['up-image'] = { type: 'image', routes: [{ provider: 'up', upstream_model: 'flux-dev', pricing: { image_cost_per_image_eur: 0.04 }, energy: { wh_per_image: 2 } }] };
    igw = await startTestGateway(config);
    const { app } = igw.gateway;
    // Wired as the composition root wires them (app/gateway.ts).
    executes = batchExecutes({
      ...app,
      accounts: app.store.accounts,
      vault: app.store.vault,
      recordLog: (entry) => {
        app.store.requestLog.append(entry);
        app.activity.recordRequest(entry);
      },
    });
    principal = authenticate({ authorization: `Bearer ${igw.key}` }, igw.gateway.app.store.keys, Date.now());
  });
  afterAll(async () => {
    await igw.close();
    await upstream.close();
  });

  /** Fields that differ between two calls by nature: ids and clock seconds. */
  function stable(body: unknown): unknown {
    const { id: _id, created: _created, ...rest } = body as Record<string, unknown>;
    return rest;
  }

  const cases: Array<{ name: string; endpoint: BatchEndpoint; body: Record<string, unknown>; status: number; code?: string }> = [
    { name: 'chat', endpoint: '/v1/chat/completions', body: { model: 'up-chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }, status: 200 },
    { name: 'chat, ignored fields named', endpoint: '/v1/chat/completions', body: { model: 'up-chat', messages: [{ role: 'user', content: 'hi' }], 'x.odd': 1 }, status: 200 },
    { name: 'chat, unknown model', endpoint: '/v1/chat/completions', body: { model: 'nope', messages: [{ role: 'user', content: 'hi' }] }, status: 404, code: 'INFERENCE_3001' },
    { name: 'chat, refused upstream', endpoint: '/v1/chat/completions', body: { model: 'up-chat', messages: [{ role: 'user', content: 'fail' }] }, status: 400, code: 'VALIDATION_4005' },
    { name: 'embeddings', endpoint: '/v1/embeddings', body: { model: 'up-embed', input: ['a', 'bb'] }, status: 200 },
    { name: 'embeddings base64', endpoint: '/v1/embeddings', body: { model: 'up-embed', input: 'abc', encoding_format: 'base64' }, status: 200 },
    { name: 'embeddings, empty input', endpoint: '/v1/embeddings', body: { model: 'up-embed', input: [] }, status: 400, code: 'VALIDATION_4005' },
    { name: 'images', endpoint: '/v1/images/generations', body: { model: 'up-image', prompt: 'a fox' }, status: 200 },
    { name: 'images, bad size', endpoint: '/v1/images/generations', body: { model: 'up-image', prompt: 'a fox', size: '7x7' }, status: 400, code: 'VALIDATION_4005' },
  ];

  it.each(cases)('$name: {status, body} equal the HTTP answer', async ({ endpoint, body, status, code }) => {
    const http = await postJson(`${igw.url}${endpoint}`, igw.key, body);
    const row = await executes[endpoint](body, principal, new AbortController().signal);
    expect(http.status).toBe(status);
    expect(row.status).toBe(http.status);
    expect(stable(row.body)).toEqual(stable(http.json));
    if (code !== undefined) expect((row.body as { error: { code: string } }).error.code).toBe(code);
    expect(row.requestId).toMatch(/^req_/);
  });

  it('writes one request-log line per call, like the live request (endpoint, key, model, billing)', async () => {
    const body = { model: 'up-embed', input: 'log me' };
    const http = await postJson(`${igw.url}/v1/embeddings`, igw.key, body);
    const row = await executes['/v1/embeddings'](body, principal, new AbortController().signal);
    // The live line is written when the response closes, which may be just after the client has it.
    let lines: RequestLogEntry[] = [];
    for (const deadline = Date.now() + 3000; lines.length < 2 && Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 20))) {
      lines = (await igw.gateway.app.store.requestLog.readSince(0)).filter((entry) => entry.request_id === row.requestId || entry.request_id === http.headers.get('x-request-id'));
    }
    expect(lines).toHaveLength(2);
    const [live, executed] = [lines.find((line) => line.request_id !== row.requestId)!, lines.find((line) => line.request_id === row.requestId)!];
    const comparable = ({ time: _t, request_id: _r, latency_ms: _l, ...rest }: RequestLogEntry) => rest;
    expect(comparable(executed)).toEqual(comparable(live));
    expect(executed).toMatchObject({ endpoint: '/v1/embeddings', key_id: principal.keyId, account: principal.account, model: 'up-embed', provider: 'up', status: 200, input_tokens: 4 });
    expect(Number(executed.eur)).toBeGreaterThan(0);
  });

  it('a key without the endpoint scope gets AUTH_1015, logged', async () => {
    const row = await executes['/v1/embeddings']({ model: 'up-embed', input: 'x' }, { ...principal, scopes: ['inference.chat'] }, new AbortController().signal);
    expect(row.status).toBe(403);
    expect((row.body as { error: { code: string } }).error.code).toBe('AUTH_1015');
  });

  it('chat refuses stream (a row has no connection to stream on)', async () => {
    const row = await executes['/v1/chat/completions']({ model: 'up-chat', messages: [{ role: 'user', content: 'hi' }], stream: true }, principal, new AbortController().signal);
    expect(row.status).toBe(400);
    expect((row.body as { error: { code: string; message: string } }).error).toMatchObject({ code: 'VALIDATION_4005' });
  });
});
