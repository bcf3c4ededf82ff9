import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { postJson, startTestGateway, upstreamConfig, type TestGateway } from '../helpers/gateway.js';

/**
 * Spec (chat completions, content parts): image URLs are fetched and re-encoded server side;
 * DESIGN §6: private/loopback URLs are refused unless server.allow_private_urls. Everything here
 * is loopback: a fake OpenAI upstream, a local image server, igw in front.
 */

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a2a3c3f50000000049454e44ae426082', 'hex');
const PNG_DATA_URI = `data:image/png;base64,${PNG.toString('base64')}`;

const completion = {
  id: 'chatcmpl-img',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'real-model-1',
  choices: [{ index: 0, message: { role: 'assistant', content: 'a red pixel' }, finish_reason: 'stop', logprobs: null }],
  usage: { prompt_tokens: 90, completion_tokens: 3, total_tokens: 93 },
};
const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  JSON.stringify({ id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'real-model-1', choices: [{ index: 0, delta, finish_reason: finish }] });

const usageChunk = JSON.stringify({ id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'real-model-1', choices: [], usage: completion.usage });

function withImage(url: string, model = 'up-chat', extra: Record<string, unknown> = {}) {
  return {
    model,
    messages: [{ role: 'user', content: [{ type: 'text', text: 'What is in this image?' }, { type: 'image_url', image_url: { url, detail: 'low' } }] }],
    ...extra,
  };
}

const FIELD = 'messages[0].content[1].image_url.url';

describe('image URLs in chat messages', () => {
  let images: Server;
  let imageOrigin: string;
  let imageHits = 0;
  let upstream: FakeUpstream;
  let open: TestGateway;
  let guarded: TestGateway;

  beforeAll(async () => {
    images = createServer((request, response) => {
      imageHits += 1;
      if (request.url === '/pixel.png') response.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      else if (request.url === '/page.html') response.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
      else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    imageOrigin = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
    upstream = await startFakeUpstream((request) =>
      request.body?.stream === true ? { sse: [chunk({ role: 'assistant', content: 'a red pixel' }), chunk({}, 'stop'), usageChunk] } : { json: completion },
    );
    const textOnly = { type: 'chat', capabilities: { vision: false }, routes: [{ provider: 'up', upstream_model: 'text-1' }] };
    const withModels = (server: Record<string, unknown>) => {
      const config = upstreamConfig(upstream.url, { server });
      (config['models'] as Record<string, unknown>)['text-only'] = textOnly;
      return config;
    };
    open = await startTestGateway(withModels({ allow_private_urls: true, image_fetch_max_bytes: 4096, image_fetch_timeout_ms: 2000 }));
    guarded = await startTestGateway(withModels({ allow_private_urls: false }));
  });
  afterAll(async () => {
    await open.close();
    await guarded.close();
    await upstream.close();
    await new Promise<void>((resolve) => images.close(() => resolve()));
  });

  it('a model without vision refuses image parts before anything is fetched', async () => {
    const before = imageHits;
    const result = await postJson(`${open.url}/v1/chat/completions`, open.key, withImage(`${imageOrigin}/pixel.png`, 'text-only'));
    expect(result.status).toBe(400);
    expect(result.json.error.code).toBe('INFERENCE_3201');
    expect(imageHits).toBe(before);
  });

  it('fetches an http image URL and sends the upstream a data URI (non-stream)', async () => {
    const before = upstream.requests.length;
    const result = await postJson(`${open.url}/v1/chat/completions`, open.key, withImage(`${imageOrigin}/pixel.png`));
    expect(result.status).toBe(200);
    expect(result.json.choices[0].message.content).toBe('a red pixel');
    const sent = upstream.requests[before]!.body;
    expect(sent.messages[0].content[1]).toEqual({ type: 'image_url', image_url: { url: PNG_DATA_URI, detail: 'low' } });
    expect(sent.messages[0].content[0]).toEqual({ type: 'text', text: 'What is in this image?' });
  });

  it('inlines images on the streaming path too', async () => {
    const before = upstream.requests.length;
    const response = await fetch(`${open.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${open.key}` },
      body: JSON.stringify(withImage(`${imageOrigin}/pixel.png`, 'up-chat', { stream: true })),
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('data: [DONE]');
    expect(upstream.requests[before]!.body.messages[0].content[1].image_url.url).toBe(PNG_DATA_URI);
  });

  it('passes a base64 data URI through unchanged', async () => {
    const before = upstream.requests.length;
    const result = await postJson(`${guarded.url}/v1/chat/completions`, guarded.key, withImage(PNG_DATA_URI));
    expect(result.status).toBe(200);
    expect(upstream.requests[before]!.body.messages[0].content[1].image_url.url).toBe(PNG_DATA_URI);
  });

  it('with allow_private_urls false, a loopback image URL is a 400 VALIDATION_4005 and nothing is fetched or sent', async () => {
    const upstreamBefore = upstream.requests.length;
    const imagesBefore = imageHits;
    const result = await postJson(`${guarded.url}/v1/chat/completions`, guarded.key, withImage(`${imageOrigin}/pixel.png`));
    expect(result.status).toBe(400);
    expect(result.json.error.code).toBe('VALIDATION_4005');
    expect(result.json.error.details).toMatchObject({ field: FIELD });
    expect(result.json.error.message).toContain('server.allow_private_urls');
    expect(upstream.requests.length).toBe(upstreamBefore);
    expect(imageHits).toBe(imagesBefore);
  });

  it('an image URL that cannot be used is the client’s 400, never a provider error', async () => {
    const cases: Array<[string, RegExp]> = [
      [`${imageOrigin}/missing.png`, /the server answered HTTP 404/],
      [`${imageOrigin}/page.html`, /not a supported image/],
      ['file:///etc/passwd', /uses the scheme "file"/],
    ];
    const before = upstream.requests.length;
    for (const [url, message] of cases) {
      const result = await postJson(`${open.url}/v1/chat/completions`, open.key, withImage(url));
      expect(result.status).toBe(400);
      expect(result.json.error.code).toBe('VALIDATION_4005');
      expect(result.json.error.details).toMatchObject({ field: FIELD });
      expect(result.json.error.message).toMatch(message);
    }
    expect(upstream.requests.length).toBe(before);
  });

  it('an image over server.image_fetch_max_bytes is refused with the limit', async () => {
    const big = `data:image/png;base64,${Buffer.concat([PNG, Buffer.alloc(5000)]).toString('base64')}`;
    const result = await postJson(`${open.url}/v1/chat/completions`, open.key, withImage(big));
    expect(result.status).toBe(400);
    expect(result.json.error.code).toBe('VALIDATION_4005');
    expect(result.json.error.message).toContain('the limit is 4096 bytes');
  });
});
