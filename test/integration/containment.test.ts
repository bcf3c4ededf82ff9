import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/errors/gateway-error.js';
import { startHttpServer, type RunningServer } from '../../src/http/server.js';
import type { GatewayRoute } from '../../src/http/routes.js';
import { postJson, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { sendRaw, type RawOutcome, type RawRequest } from '../helpers/raw-http.js';

const chat = (extra: Record<string, unknown> = {}) => ({ model: 'local-echo', messages: [{ role: 'user', content: 'hi' }], ...extra });

/** GET on a test server, returning status, headers and text; a hang fails the test. */
function get(url: string, key: string): Promise<{ status: number; headers: Record<string, unknown>; text: string; complete: boolean }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { headers: { authorization: `Bearer ${key}` }, timeout: 5000 }, (incoming) => {
      const parts: Buffer[] = [];
      incoming.on('data', (part: Buffer) => parts.push(part));
      incoming.on('error', () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, text: Buffer.concat(parts).toString('utf8'), complete: false }));
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, text: Buffer.concat(parts).toString('utf8'), complete: incoming.complete }));
    });
    outgoing.on('timeout', () => reject(new Error('request hung')));
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** Issue 14: nothing a client sends can stop the gateway or make it write a header Node refuses. */
describe('containment and header hygiene', () => {
  let igw: TestGateway;
  beforeAll(async () => {
    igw = await startTestGateway({ server: { cors_origins: ['*'] } });
  });
  afterAll(async () => igw.close());

  it.each([
    ['a control character', 'abc\u0001def'],
    ['a newline (header injection)', 'abc\r\nset-cookie: x=1'],
    ['non-ASCII text', 'idé-€-日本'],
    ['a code point Node cannot write (U+0100 and up)', 'id\u0100'],
    ['surrounding whitespace', ' id-1 '],
    ['an empty string', ''],
  ])('request_id with %s is not echoed, the request succeeds and the gateway keeps serving', async (_name, requestId) => {
    for (const stream of [false, true]) {
      const response = await postJson(`${igw.url}/v1/chat/completions`, igw.key, chat({ request_id: requestId, stream }));
      expect(response.status).toBe(200);
      expect(response.headers.get('x-client-request-id')).toBeNull();
      expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    }
    expect((await postJson(`${igw.url}/v1/chat/completions`, igw.key, chat())).status).toBe(200);
  });

  it('a sane request_id is still echoed', async () => {
    const response = await postJson(`${igw.url}/v1/chat/completions`, igw.key, chat({ request_id: 'client-req 42' }));
    expect(response.status).toBe(200);
    expect(response.headers.get('x-client-request-id')).toBe('client-req 42');
  });

  it('a request_id that breaks the head of an error answer does not break the error answer', async () => {
    // Valid enough to reach the echo, then refused: the 4xx carries the envelope, not a crash.
    const response = await postJson(`${igw.url}/v1/chat/completions`, igw.key, chat({ request_id: 'x\u0000y', model: 'no-such-model' }));
    expect(response.status).toBe(404);
    expect(response.json.error.code).toMatch(/^[A-Z]+_\d{4}$/);
  });

  it('an origin that is no sane header value is refused, not echoed (cors_origins "*")', async () => {
    const response = await postJson(`${igw.url}/v1/chat/completions`, igw.key, chat(), { origin: 'http://caf\u00e9.example' });
    expect(response.status).toBe(403);
    expect(response.json.error.code).toBe('AUTH_1041');
    const allowed = await postJson(`${igw.url}/v1/chat/completions`, igw.key, chat(), { origin: 'http://ok.example' });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://ok.example');
  });

  describe('faults the fuzzer found (test/fuzz)', () => {
    const port = () => Number(new URL(igw.url).port);
    const raw = (request: Partial<RawRequest> & { body?: Buffer }): Promise<RawOutcome> => {
      const body = request.body ?? Buffer.alloc(0);
      return sendRaw(
        port(),
        {
          method: request.method ?? 'POST',
          target: request.target ?? '/v1/chat/completions',
          headers: [['host', `127.0.0.1:${port()}`], ['authorization', `Bearer ${igw.key}`], ...(request.headers ?? []), ['content-length', String(body.length)], ['connection', 'close']],
          body,
        },
        10_000,
      );
    };
    const envelopeOf = (outcome: RawOutcome) => {
      expect(outcome.kind).toBe('response');
      if (outcome.kind !== 'response') throw new Error('no answer');
      return { status: outcome.response.status, json: JSON.parse(outcome.response.body.toString('utf8')) };
    };

    it("a header Node's parser refuses → 400 with the envelope, not a bare status line", async () => {
      const answer = envelopeOf(await raw({ headers: [['x-odd', Buffer.from([0x61, 0x01, 0x62])]], body: Buffer.from('{}') }));
      expect(answer.status).toBe(400);
      expect(answer.json.error.code).toBe('VALIDATION_4005');
    });

    it('an Expect other than 100-continue → 417 with the envelope', async () => {
      const answer = envelopeOf(await raw({ headers: [['content-type', 'application/json'], ['expect', 'teapot']], body: Buffer.from('{}') }));
      expect(answer.status).toBe(417);
      expect(answer.json.error.code).toBe('VALIDATION_4005');
    });

    it('CONNECT → 405 with the envelope instead of a silent close', async () => {
      const answer = envelopeOf(await raw({ method: 'CONNECT', target: '127.0.0.1:443' }));
      expect(answer.status).toBe(405);
      expect(answer.json.error.code).toBe('RESOURCE_5405');
    });

    it('a body nested 50,000 deep → 400 VALIDATION_4005 (it overflowed the stack in token counting: 500)', async () => {
      const schema = `${'{"type":'.repeat(50_000)}"object"${'}'.repeat(50_000)}`;
      const body = Buffer.from(`{"model":"local-echo","max_tokens":16,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"f","input_schema":${schema}}]}`);
      const answer = envelopeOf(await raw({ target: '/v1/messages', headers: [['content-type', 'application/json'], ['anthropic-version', '2023-06-01']], body }));
      expect(answer.status).toBe(400);
      expect(answer.json.error).toMatchObject({ code: 'VALIDATION_4005', details: { field: 'body', max_depth: 128 } });
    });

    it('a JSON schema of ordinary depth still passes the depth check', async () => {
      const response = await postJson(`${igw.url}/v1/chat/completions`, igw.key, chat({ response_format: { type: 'json_schema', json_schema: { name: 's', schema: { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'array', items: { type: 'string' } } } } } } } } }));
      expect(response.status).toBe(200);
    });

    it('a multipart part whose header never ends → 400, and the second busboy error no longer stops the process', async () => {
      const body = Buffer.from(`--b\r\ncontent-disposition: form-data; name="file"; filename="x"\r\n${'x-pad: y\r\n'.repeat(3000)}`);
      const answer = envelopeOf(await raw({ target: '/v1/files', headers: [['content-type', 'multipart/form-data; boundary=b']], body }));
      expect(answer.status).toBe(400);
      expect(answer.json.error.code).toBe('VALIDATION_4005');
    });

    it('a multipart body cut inside the file → 400 (the file stream error is heard)', async () => {
      const body = Buffer.from(`--b\r\ncontent-disposition: form-data; name="purpose"\r\n\r\nassistants\r\n--b\r\ncontent-disposition: form-data; name="file"; filename="x.txt"\r\ncontent-type: text/plain\r\n\r\nhalf a fi`);
      const answer = envelopeOf(await raw({ target: '/v1/files', headers: [['content-type', 'multipart/form-data; boundary=b']], body }));
      expect(answer.status).toBe(400);
      expect(answer.json.error.code).toBe('VALIDATION_4005');
    });

    it('a stream honours the client\'s connection: close (the answer ends with the socket)', async () => {
      const outcome = await raw({ headers: [['content-type', 'application/json']], body: Buffer.from(JSON.stringify(chat({ stream: true }))) });
      expect(outcome.kind).toBe('response');
      if (outcome.kind === 'response') {
        expect(outcome.response.status).toBe(200);
        expect(outcome.response.body.toString('utf8')).toContain('data: [DONE]');
      }
    });

    it('igw-ignored-params names only sane client field names, within a bounded length', async () => {
      const unknown = Object.fromEntries([['caf\u00e9', 1], ['a\u0001b', 2], ...Array.from({ length: 500 }, (_, index) => [`extra_field_${index}`, index])]);
      const response = await postJson(`${igw.url}/v1/messages`, igw.key, { model: 'local-echo', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }], ...unknown }, { 'anthropic-version': '2023-06-01' });
      expect(response.status).toBe(200);
      const header = response.headers.get('igw-ignored-params')!;
      expect(header).toMatch(/^extra_field_0, extra_field_1, .*, \.\.\.$/);
      expect(header.length).toBeLessThanOrEqual(1030);
    });

    it('the gateway is still up', async () => {
      expect((await postJson(`${igw.url}/v1/chat/completions`, igw.key, chat())).status).toBe(200);
    });
  });

  describe('whatever a handler or the renderer throws ends that one request', () => {
    let server: RunningServer;
    const routes = (): GatewayRoute[] => {
      const route = (path: string, handler: GatewayRoute['handler'], dialect: GatewayRoute['dialect'] = 'gateway'): GatewayRoute => ({ method: 'GET', path, scope: null, body: 'none', dialect, handler });
      return [
        route('/throws-odd', async () => {
          // Not an Error, and even String() of it throws.
          throw { toString: () => { throw new Error('no string'); } };
        }),
        route('/bad-header-then-error', async (call) => {
          call.headers['x-echo'] = 'a\u0001b';
          throw new GatewayError('VALIDATION_4005', 'refused');
        }),
        route('/renderer-throws', async () => {
          const error = new GatewayError('VALIDATION_4005');
          Object.defineProperty(error, 'headers', { get: () => { throw new Error('renderer failed'); } });
          throw error;
        }, 'messages'),
        route('/throws-mid-stream', async (call) => {
          call.response.writeHead(200, { 'content-type': 'text/event-stream' });
          call.response.write('data: {"partial":true}\n\n');
          throw new Error('handler failed mid-stream');
        }),
      ];
    };
    beforeAll(async () => {
      server = await startHttpServer(igw.gateway.app, routes(), 0, '127.0.0.1');
    });
    afterAll(async () => server.close(100));

    it('a thrown non-Error whose toString throws → 500 SYSTEM_9001 envelope', async () => {
      const response = await get(`${server.url}/throws-odd`, igw.key);
      expect(response.status).toBe(500);
      expect(JSON.parse(response.text).error.code).toBe('SYSTEM_9001');
      expect(response.headers['x-request-id']).toMatch(/^req_/);
    });

    it('an invalid header set by the handler is dropped, the error answer goes out', async () => {
      const response = await get(`${server.url}/bad-header-then-error`, igw.key);
      expect(response.status).toBe(400);
      expect(JSON.parse(response.text).error.code).toBe('VALIDATION_4005');
      expect(response.headers['x-echo']).toBeUndefined();
    });

    it('a renderer that throws → the fixed 500 SYSTEM_9001 envelope of the dialect', async () => {
      const response = await get(`${server.url}/renderer-throws`, igw.key);
      expect(response.status).toBe(500);
      expect(JSON.parse(response.text)).toMatchObject({ type: 'error', error: { type: 'api_error', code: 'SYSTEM_9001' } });
    });

    it('a throw after the stream started closes that response cleanly', async () => {
      const response = await get(`${server.url}/throws-mid-stream`, igw.key);
      expect(response.status).toBe(200);
      expect(response.text).toContain('partial');
    });

    it('the gateway still serves afterwards', async () => {
      expect((await postJson(`${igw.url}/v1/chat/completions`, igw.key, chat())).status).toBe(200);
    });
  });
});
