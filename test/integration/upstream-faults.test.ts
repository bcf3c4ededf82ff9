import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeHandler, type FakeUpstream } from '../helpers/fake-upstream.js';
import { postJson, startTestGateway, type TestGateway } from '../helpers/gateway.js';

const chunk = (content: string, finish: string | null = null) =>
  JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: finish }] });

/** Reads an SSE response from igw as raw text, with a hard cap so a hang fails the test. */
async function streamText(url: string, key: string, model: string): Promise<{ status: number; text: string; ms: number }> {
  const started = performance.now();
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    signal: AbortSignal.timeout(5000),
  });
  const text = await response.text();
  return { status: response.status, text, ms: performance.now() - started };
}

/**
 * Upstream faults (issue "Real providers", item 6): each becomes the spec's code within the
 * provider's timeout, the client connection is closed cleanly, and the gateway keeps serving.
 */
describe('upstream faults', () => {
  let upstream: FakeUpstream;
  let slowServer: Server;
  let igw: TestGateway;
  let handler: FakeHandler = () => ({ json: {} });

  beforeAll(async () => {
    upstream = await startFakeUpstream((request) => handler(request));
    // Headers at once, then a body that never completes: only a raw server can do this.
    slowServer = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"id":"x","object":"chat.comp');
    });
    await new Promise<void>((resolve) => slowServer.listen(0, '127.0.0.1', resolve));
    const slowPort = (slowServer.address() as AddressInfo).port;
    igw = await startTestGateway({
      providers: {
        up: { kind: 'openai', base_url: upstream.url, timeout_ms: 400 },
        slow: { kind: 'openai', base_url: `http://127.0.0.1:${slowPort}/v1`, timeout_ms: 400 },
      },
      models: {
        'up-chat': { type: 'chat', capabilities: { streaming: true }, routes: [{ provider: 'up', upstream_model: 'm' }] },
        'slow-body': { type: 'chat', routes: [{ provider: 'slow', upstream_model: 'm' }] },
      },
    });
  });
  afterAll(async () => {
    await igw.close();
    await upstream.close();
    slowServer.closeAllConnections();
    await new Promise<void>((resolve) => slowServer.close(() => resolve()));
  });

  it('malformed SSE mid-stream → an error event, the stream closes', async () => {
    handler = () => ({ rawSse: `data: ${chunk('ok ')}\n\ndata: {"id": "broken\n\n` });
    const result = await streamText(igw.url, igw.key, 'up-chat');
    expect(result.status).toBe(200);
    expect(result.text).toContain('"content":"ok "');
    expect(result.text).toContain('"code":"INFERENCE_3105"');
    expect(result.text).not.toContain('[DONE]');
  });

  it('a stream that stalls after its first chunk → error event within the provider timeout', async () => {
    handler = () => ({ sse: [chunk('first'), chunk('never')], delayMs: 5000 });
    const result = await streamText(igw.url, igw.key, 'up-chat');
    expect(result.text).toContain('"content":"first"');
    expect(result.text).toContain('"code":"INFERENCE_3107"');
    expect(result.ms).toBeLessThan(2000);
  });

  it('a stream cut mid-way (socket destroyed) → error event, no hang', async () => {
    handler = () => ({ destroy: true, sseBefore: [chunk('partial')] });
    const result = await streamText(igw.url, igw.key, 'up-chat');
    expect(result.text).toContain('"content":"partial"');
    expect(result.text).toContain('"code":"INFERENCE_3105"');
  });

  it('a stream that ends without finish or [DONE] → error event', async () => {
    handler = () => ({ sse: [chunk('half')], sseDone: false });
    const result = await streamText(igw.url, igw.key, 'up-chat');
    expect(result.text).toContain('"code":"INFERENCE_3105"');
  });

  it('a slow body on a non-stream call → 504 INFERENCE_3107 within the timeout', async () => {
    const started = performance.now();
    const response = await postJson(`${igw.url}/v1/chat/completions`, igw.key, { model: 'slow-body', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(504);
    expect(response.json.error.code).toBe('INFERENCE_3107');
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('a reset before any byte → 502 INFERENCE_3105; a stream that never starts → 504', async () => {
    handler = () => ({ destroy: true });
    const reset = await postJson(`${igw.url}/v1/chat/completions`, igw.key, { model: 'up-chat', messages: [{ role: 'user', content: 'hi' }] });
    expect(reset.json.error.code).toBe('INFERENCE_3105');
    handler = () => ({ hang: true });
    const hung = await streamText(igw.url, igw.key, 'up-chat');
    expect(hung.status).toBe(504);
    expect(JSON.parse(hung.text).error.code).toBe('INFERENCE_3107');
  });

  it('upstream HTML error page (non-JSON 502) → INFERENCE_3105, never a bare 500', async () => {
    handler = () => ({ status: 502, text: '<html><body>Bad Gateway</body></html>', headers: { 'content-type': 'text/html' } });
    const response = await postJson(`${igw.url}/v1/chat/completions`, igw.key, { model: 'up-chat', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(502);
    expect(response.json.error.code).toBe('INFERENCE_3105');
  });

  it('after all of that the gateway still serves', async () => {
    handler = () => ({ json: { id: 'x', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'alive' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } } });
    const response = await postJson(`${igw.url}/v1/chat/completions`, igw.key, { model: 'up-chat', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(200);
    expect(response.json.choices[0].message.content).toBe('alive');
  });
});
