import { readdir, stat } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeReply, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { makeWav } from '../helpers/wav.js';
import { readRecordedJson } from '../helpers/recorded.js';

// Real captures from fixtures/recorded/audio (see fixtures/recorded/README.md).
const mistralCapture = readRecordedJson<Record<string, unknown>>('audio/mistral-transcription-segments.json');
const openaiCapture = readRecordedJson<Record<string, unknown>>('audio/openai-transcription-verbose-json-words.json');

let upstream: FakeUpstream;
let gw: TestGateway;
let nextReply: FakeReply;
/** Runs while the upstream holds the request (the upload is on disk then). */
let duringUpstream: (() => Promise<void>) | undefined;

beforeAll(async () => {
  upstream = await startFakeUpstream(async () => {
    await duringUpstream?.();
    return nextReply;
  });
  gw = await startTestGateway({
    providers: { up: { kind: 'openai', base_url: upstream.url, timeout_ms: 5000 } },
    models: {
      'whisper-x': { type: 'audio', routes: [{ provider: 'up', upstream_model: 'whisper-1', pricing: { audio_cost_per_minute_eur: 0.006 }, energy: { wh_per_audio_minute: 0.3 } }] },
    },
  });
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.requests.length = 0;
  duringUpstream = undefined;
  nextReply = { json: { ...mistralCapture, duration: 60 } };
});

async function transcribe(fields: Record<string, string | string[]>, file: { bytes: Buffer; name: string } | null = { bytes: makeWav(1), name: 'a.wav' }, key = gw.key) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) for (const item of [value].flat()) form.append(name, item);
  if (file !== null) form.append('file', new Blob([file.bytes]), file.name);
  const response = await fetch(`${gw.url}/v1/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

async function tmpEntries(): Promise<string[]> {
  try {
    return await readdir(path.join(gw.dataDir, 'tmp'));
  } catch {
    return [];
  }
}

describe('POST /v1/audio/transcriptions against a Whisper-style upstream', () => {
  it('sends the file as multipart with the upstream model and response_format verbose_json', async () => {
    const wav = makeWav(1);
    const answer = await transcribe({ model: 'whisper-x', language: 'en', temperature: '0.2', prompt: 'Galileo', 'timestamp_granularities[]': ['word', 'segment'] }, { bytes: wav, name: 'a.wav' });
    expect(answer.status).toBe(200);
    expect(upstream.requests).toHaveLength(1);
    const received = upstream.requests[0]!;
    expect(received.path).toBe('/v1/audio/transcriptions');
    expect(received.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const raw = received.rawBody;
    expect(raw).toMatch(/name="model"\r\n\r\nwhisper-1\r\n/);
    expect(raw).toMatch(/name="response_format"\r\n\r\nverbose_json\r\n/);
    expect(raw).toMatch(/name="language"\r\n\r\nen\r\n/);
    expect(raw).toMatch(/name="temperature"\r\n\r\n0.2\r\n/);
    expect(raw).toMatch(/name="prompt"\r\n\r\nGalileo\r\n/);
    expect(raw.match(/name="timestamp_granularities\[\]"/g)).toHaveLength(2);
    expect(raw).toMatch(/name="file"; filename="a.wav"\r\nContent-Type: audio\/wav\r\n\r\nRIFF/i);
    expect(Number(received.headers['content-length'])).toBeGreaterThan(wav.length);
    expect(await tmpEntries()).toEqual([]);
  });

  it('json (default): text, language, duration, impact and billing per audio minute', async () => {
    const answer = await transcribe({ model: 'whisper-x' });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ text: mistralCapture['text'], language: mistralCapture['language'], duration: 60 });
    expect(Object.keys(answer.json).sort()).toEqual(['billing_cost', 'duration', 'environment_impact', 'language', 'text']);
    // 60 s at 0.006 EUR per minute.
    expect(answer.json.billing_cost.credits).toBe('0.006');
    expect(answer.json.environment_impact.energy_kwh).toBeGreaterThan(0);
    expect(answer.headers.get('x-igw-billing-credits')).toBe('0.006');
  });

  it('verbose_json: segments and the upstream language and duration', async () => {
    nextReply = { json: { ...openaiCapture, segments: mistralCapture['segments'] } };
    const answer = await transcribe({ model: 'whisper-x', response_format: 'verbose_json' });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ task: 'transcribe', language: 'english', text: openaiCapture['text'] });
    expect(answer.json.duration).toBeCloseTo(36.71, 2);
    expect(answer.json.segments).toHaveLength(4);
    expect(answer.json.segments[1]).toMatchObject({ id: 1, start: 9.1, end: 17.3 });
    expect(answer.json.words[0].word).toBe('Galileo');
    expect(Number(answer.json.billing_cost.credits)).toBeCloseTo((0.006 * 36.709999084472656) / 60, 9);
  });

  it('text: a plain body, billing in headers', async () => {
    const answer = await transcribe({ model: 'whisper-x', response_format: 'text' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(answer.text).toBe(mistralCapture['text']);
    expect(answer.headers.get('x-igw-billing-credits')).toBe('0.006');
    expect(answer.headers.get('x-igw-billing-paid-with')).toMatch(/^(energy|credits)$/);
    expect(answer.headers.get('x-igw-audio-seconds')).toBe('60');
  });

  it('srt: rendered by igw from the segments', async () => {
    const answer = await transcribe({ model: 'whisper-x', response_format: 'srt' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/x-subrip/);
    expect(answer.text.startsWith('1\n00:00:00,100 --> 00:00:08,200\nGalileo was an American')).toBe(true);
    expect(answer.text).toContain('4\n00:00:30,200 --> 00:00:35,900\n');
  });

  it('vtt: rendered by igw from the segments', async () => {
    const answer = await transcribe({ model: 'whisper-x', response_format: 'vtt' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/vtt/);
    expect(answer.text.startsWith('WEBVTT\n\n00:00:00.100 --> 00:00:08.200\nGalileo')).toBe(true);
  });

  it('without a duration from the upstream, bills the duration in the file header', async () => {
    nextReply = { json: { text: 'hello' } };
    const answer = await transcribe({ model: 'whisper-x' }, { bytes: makeWav(3), name: 'clip.wav' });
    expect(answer.status).toBe(200);
    expect(answer.json.duration).toBeCloseTo(3, 3);
    expect(Number(answer.json.billing_cost.credits)).toBeCloseTo(0.0003, 9);
  });

  it('checks the format by content: a text file named .mp3 → VALIDATION_4005 on file', async () => {
    const answer = await transcribe({ model: 'whisper-x' }, { bytes: Buffer.from('this is not audio at all'), name: 'song.mp3' });
    expect(answer.status).toBe(400);
    expect(answer.json.error.code).toBe('VALIDATION_4005');
    expect(answer.json.error.details.field).toBe('file');
    expect(upstream.requests).toHaveLength(0);
    expect(await tmpEntries()).toEqual([]);
  });

  it('missing model → VALIDATION_4002; missing file → VALIDATION_4002', async () => {
    const noModel = await transcribe({});
    expect(noModel.status).toBe(400);
    expect(noModel.json.error).toMatchObject({ code: 'VALIDATION_4002', details: { field: 'model' } });
    const noFile = await transcribe({ model: 'whisper-x' }, null);
    expect(noFile.json.error).toMatchObject({ code: 'VALIDATION_4002', details: { field: 'file' } });
  });

  it.each([
    [{ temperature: '1.5' }, 'temperature'],
    [{ temperature: 'hot' }, 'temperature'],
    [{ language: 'english' }, 'language'],
    [{ response_format: 'xml' }, 'response_format'],
    [{ 'timestamp_granularities[]': 'sentence' }, 'timestamp_granularities[]'],
    [{ bogus: '1' }, 'bogus'],
    [{ prompt: 'x'.repeat(70 * 1024) }, 'prompt'],
  ])('invalid %j → VALIDATION_4005', async (fields, field) => {
    const answer = await transcribe({ model: 'whisper-x', ...fields });
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({ code: 'VALIDATION_4005', details: { field } });
  });

  it('needs scope inference.audio (AUTH_1015 otherwise); inference.* passes', async () => {
    const chatOnly = await gw.newKey({ name: 'chat-only', scopes: ['inference.chat'] });
    const refused = await transcribe({ model: 'whisper-x' }, undefined, chatOnly);
    expect(refused.status).toBe(403);
    expect(refused.json.error).toMatchObject({ code: 'AUTH_1015', details: { required_scope: 'inference.audio' } });
    const wildcard = await gw.newKey({ name: 'inference', scopes: ['inference.*'] });
    expect((await transcribe({ model: 'whisper-x' }, undefined, wildcard)).status).toBe(200);
  });

  it('a model that is not an audio model is refused', async () => {
    const answer = await transcribe({ model: 'nope-model' });
    expect(answer.status).toBe(404);
    expect(answer.json.error.code).toBe('INFERENCE_3001');
  });

  it('a body that is not multipart → VALIDATION_4005', async () => {
    const response = await fetch(`${gw.url}/v1/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' }, body: '{"model":"whisper-x"}' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error.code).toBe('VALIDATION_4005');
  });

  it('over 25 MB → 413 VALIDATION_4016 as soon as the limit is crossed; the temp folder is empty afterwards', async () => {
    const boundary = 'igw-test-boundary';
    const head = Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="model"\r\n\r\nwhisper-x\r\n--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="big.wav"\r\ncontent-type: audio/wav\r\n\r\n`);
    const chunk = Buffer.alloc(1024 * 1024, 7);
    const result = await new Promise<{ status: number; body: string; sentBytes: number }>((resolve, reject) => {
      let sent = 0;
      let stop = false;
      const req = httpRequest(`${gw.url}/v1/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}`, 'content-type': `multipart/form-data; boundary=${boundary}` } }, (response) => {
        stop = true;
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (part: string) => (body += part));
        response.on('end', () => {
          resolve({ status: response.statusCode ?? 0, body, sentBytes: sent });
          req.destroy();
        });
      });
      req.on('error', (error) => {
        if (!stop) reject(error);
      });
      req.write(Buffer.concat([head, makeWav(0.1)]));
      const pump = () => {
        // 26 MB generated on the fly, 1 MB at a time, until the gateway answers.
        while (!stop && sent < 26 * 1024 * 1024) {
          sent += chunk.length;
          if (!req.write(chunk)) {
            req.once('drain', pump);
            return;
          }
        }
        if (!stop) req.end(`\r\n--${boundary}--\r\n`);
      };
      pump();
    });
    expect(result.status).toBe(413);
    expect(JSON.parse(result.body).error.code).toBe('VALIDATION_4016');
    expect(upstream.requests).toHaveLength(0);
    expect(await tmpEntries()).toEqual([]);
  });

  it('a client that goes away mid-upload leaves no temp file behind', async () => {
    const boundary = 'igw-abort';
    await new Promise<void>((resolve) => {
      const req = httpRequest(`${gw.url}/v1/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}`, 'content-type': `multipart/form-data; boundary=${boundary}` } });
      req.on('error', () => undefined);
      req.write(`--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="a.wav"\r\n\r\n`);
      req.write(Buffer.concat([makeWav(0.1), Buffer.alloc(512 * 1024)]), () => {
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 100);
      });
    });
    await expect.poll(async () => (await tmpEntries()).length, { timeout: 3000 }).toBe(0);
  });

  it('the upload waits in <dataDir>/tmp with mode 0600 during the upstream call, and is gone after', async () => {
    const seen: Array<{ name: string; mode: number; size: number }> = [];
    duringUpstream = async () => {
      for (const name of await tmpEntries()) {
        const info = await stat(path.join(gw.dataDir, 'tmp', name));
        seen.push({ name, mode: info.mode & 0o777, size: info.size });
      }
    };
    const wav = makeWav(0.5);
    const answer = await transcribe({ model: 'whisper-x' }, { bytes: wav, name: 'a.wav' });
    expect(answer.status).toBe(200);
    expect(seen).toEqual([{ name: expect.stringMatching(/^upload-req_/), mode: 0o600, size: wav.length }]);
    expect(await tmpEntries()).toEqual([]);
  });
});
