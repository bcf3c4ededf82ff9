import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeHandler, type FakeUpstream } from '../helpers/fake-upstream.js';
import { postJson, startTestGateway, type TestGateway } from '../helpers/gateway.js';

const chunk = (content: string, finish: string | null = null) =>
  JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: finish }] });

/** Reads an SSE response from igw as raw text, with a hard cap so a hang fails the test. */
async function streamText(url: string, key: string, model: string, path = '/v1/chat/completions'): Promise<{ status: number; text: string; ms: number }> {
  const started = performance.now();
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model, stream: true, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }),
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
  let trickleServer: Server;
  /**
   * What the scripted server sends after its head: each step 50 ms apart, then (if set) `drip` one
   * byte every 50 ms forever, else the end of the body.
   */
  let script: { steps: string[]; drip?: string } = { steps: [] };
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
    // Issue 14: bytes keep coming, a complete event never does.
    trickleServer = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const { steps, drip } = script;
      let index = 0;
      const timer = setInterval(() => {
        if (index < steps.length) response.write(steps[index]!);
        else if (drip !== undefined) response.write(drip[(index - steps.length) % drip.length]!);
        else {
          clearInterval(timer);
          response.end();
        }
        index += 1;
      }, 50);
      response.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => trickleServer.listen(0, '127.0.0.1', resolve));
    const tricklePort = (trickleServer.address() as AddressInfo).port;
    igw = await startTestGateway({
      providers: {
        up: { kind: 'openai', base_url: upstream.url, timeout_ms: 400 },
        slow: { kind: 'openai', base_url: `http://127.0.0.1:${slowPort}/v1`, timeout_ms: 400 },
        trickle: { kind: 'openai', base_url: `http://127.0.0.1:${tricklePort}/v1`, timeout_ms: 400 },
      },
      models: {
        'up-chat': { type: 'chat', capabilities: { streaming: true }, routes: [{ provider: 'up', upstream_model: 'm' }] },
        'slow-body': { type: 'chat', routes: [{ provider: 'slow', upstream_model: 'm' }] },
        'trickle-chat': { type: 'chat', capabilities: { streaming: true }, routes: [{ provider: 'trickle', upstream_model: 'm' }] },
      },
    });
  });
  afterAll(async () => {
    await igw.close();
    await upstream.close();
    slowServer.closeAllConnections();
    await new Promise<void>((resolve) => slowServer.close(() => resolve()));
    trickleServer.closeAllConnections();
    await new Promise<void>((resolve) => trickleServer.close(() => resolve()));
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

  it('a stream that trickles bytes but never completes an event → error chunk within the provider timeout', async () => {
    // One event arrives whole, then a byte every 50 ms: the 400 ms idle timeout counts events, not bytes.
    script = { steps: [`data: ${chunk('first')}\n\n`], drip: 'data: {"id":"never-complete' };
    const result = await streamText(igw.url, igw.key, 'trickle-chat');
    expect(result.status).toBe(200);
    expect(result.text).toContain('"content":"first"');
    expect(result.text).toContain('"code":"INFERENCE_3107"');
    expect(result.text).not.toContain('[DONE]');
    expect(result.ms).toBeLessThan(2000);
  });

  it('the same trickle on /v1/messages → an `error` event within the provider timeout', async () => {
    script = { steps: [`data: ${chunk('first')}\n\n`], drip: 'data: {"id":"never-complete' };
    const result = await streamText(igw.url, igw.key, 'trickle-chat', '/v1/messages');
    expect(result.status).toBe(200);
    expect(result.text).toContain('event: error');
    expect(result.text).toContain('INFERENCE_3107');
    expect(result.text).not.toContain('message_stop');
    expect(result.ms).toBeLessThan(2000);
  });

  it('a trickle before any complete event → 504 INFERENCE_3107 (no stream was started)', async () => {
    script = { steps: [], drip: 'data: {"id":"never-complete' };
    const result = await streamText(igw.url, igw.key, 'trickle-chat');
    expect(result.status).toBe(504);
    expect(JSON.parse(result.text).error.code).toBe('INFERENCE_3107');
    expect(result.ms).toBeLessThan(2000);
  });

  it('keep-alive comment lines (": OPENROUTER PROCESSING") are liveness, not a trickle', async () => {
    // A complete comment line every 50 ms for 1 s, longer than the 400 ms timeout, then the answer.
    const keepAlives = Array.from({ length: 20 }, () => ': OPENROUTER PROCESSING\n\n');
    script = { steps: [...keepAlives, `data: ${chunk('after the wait')}\n\n`, `data: ${chunk('', 'stop')}\n\ndata: [DONE]\n\n`] };
    const result = await streamText(igw.url, igw.key, 'trickle-chat');
    expect(result.status).toBe(200);
    expect(result.text).toContain('"content":"after the wait"');
    expect(result.text).toContain('[DONE]');
    expect(result.text).not.toContain('INFERENCE_3107');
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
