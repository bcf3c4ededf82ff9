import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeReply, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { makeWav } from '../helpers/wav.js';

let upstream: FakeUpstream;
let gw: TestGateway;
let replies: FakeReply[] = [];

beforeAll(async () => {
  upstream = await startFakeUpstream(() => replies.shift() ?? { json: { text: 'fallback worked', duration: 30 } });
  gw = await startTestGateway({
    providers: {
      first: { kind: 'openai', base_url: upstream.url, timeout_ms: 3000 },
      second: { kind: 'openai', base_url: upstream.url, timeout_ms: 3000 },
    },
    models: {
      'whisper-two': {
        type: 'audio',
        routes: [
          { provider: 'first', upstream_model: 'whisper-a', priority: 1, pricing: { audio_cost_per_minute_eur: 0.01 } },
          { provider: 'second', upstream_model: 'whisper-b', priority: 2, pricing: { audio_cost_per_minute_eur: 0.02 } },
        ],
      },
    },
  });
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.requests.length = 0;
  replies = [];
});

async function post(): Promise<{ status: number; json: any }> {
  const form = new FormData();
  form.append('model', 'whisper-two');
  form.append('file', new Blob([makeWav(0.5)]), 'a.wav');
  const response = await fetch(`${gw.url}/v1/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}` }, body: form });
  return { status: response.status, json: await response.json() };
}

async function tmpEntries(): Promise<string[]> {
  return readdir(path.join(gw.dataDir, 'tmp')).catch(() => []);
}

describe('transcription: route fallback and upstream errors', () => {
  it('a failing first route falls back; the file is streamed again from disk and billed on the route that served', async () => {
    replies = [{ status: 500, json: { error: { message: 'boom', type: 'server_error' } } }];
    const answer = await post();
    expect(answer.status).toBe(200);
    expect(answer.json.text).toBe('fallback worked');
    expect(upstream.requests).toHaveLength(2);
    for (const received of upstream.requests) expect(received.rawBody).toMatch(/name="file"; filename="a.wav"\r\nContent-Type: audio\/wav\r\n\r\nRIFF/i);
    expect(upstream.requests[1]!.rawBody).toMatch(/name="model"\r\n\r\nwhisper-b\r\n/);
    // 30 s on the second route at 0.02 EUR per minute.
    expect(answer.json.billing_cost.credits).toBe('0.01');
    expect(await tmpEntries()).toEqual([]);
  });

  it('every route failing → a gateway error, and no temp file left behind', async () => {
    replies = Array.from({ length: 4 }, (): FakeReply => ({ status: 503, json: { error: { message: 'overloaded' } } }));
    const answer = await post();
    expect(answer.status).toBeGreaterThanOrEqual(500);
    expect(answer.json.error.code).toMatch(/^INFERENCE_31/);
    expect(await tmpEntries()).toEqual([]);
  });

  it('an upstream answer without text → INFERENCE_3105-class error', async () => {
    replies = [{ json: { nothing: true } }, { json: { nothing: true } }];
    const answer = await post();
    expect(answer.status).toBe(502);
    expect(answer.json.error.code).toMatch(/^INFERENCE_310[35]$/);
  });
});
