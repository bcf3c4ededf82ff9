import { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeReply, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { makeWav } from '../helpers/wav.js';

const segments = [
  { id: 0, seek: 0, start: 0, end: 1.2, text: ' Hello there.', tokens: [1], temperature: 0, avg_logprob: -0.2, compression_ratio: 1, no_speech_prob: 0.01 },
  { id: 1, seek: 0, start: 1.2, end: 2, text: ' General Kenobi.', tokens: [2], temperature: 0, avg_logprob: -0.3, compression_ratio: 1, no_speech_prob: 0.02 },
];
const whisperReply: FakeReply = { json: { task: 'transcribe', language: 'english', duration: 2, text: 'Hello there. General Kenobi.', segments } };

let upstream: FakeUpstream;
let gw: TestGateway;

beforeAll(async () => {
  upstream = await startFakeUpstream(() => whisperReply);
  gw = await startTestGateway({
    providers: { up: { kind: 'openai', base_url: upstream.url } },
    models: {
      'whisper-x': { type: 'audio', routes: [{ provider: 'up', upstream_model: 'whisper-1', pricing: { audio_cost_per_minute_eur: 0.006 }, energy: { wh_per_audio_minute: 0.3 } }] },
    },
  });
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});

describe('official openai SDK: audio.transcriptions.create', () => {
  it('json with a WAV generated in the test', async () => {
    const transcription = await gw.openai().audio.transcriptions.create({ file: await toFile(makeWav(2), 'a.wav'), model: 'whisper-x' });
    expect(transcription.text).toBe('Hello there. General Kenobi.');
    const extra = transcription as unknown as { duration: number; billing_cost: { credits: string } };
    expect(extra.duration).toBe(2);
    expect(extra.billing_cost.credits).toBe('0.0002');
    expect(upstream.requests.at(-1)!.rawBody).toMatch(/name="model"\r\n\r\nwhisper-1\r\n/);
  });

  it('verbose_json with segment and word granularities', async () => {
    const transcription = await gw.openai().audio.transcriptions.create({
      file: await toFile(makeWav(2), 'a.wav'),
      model: 'whisper-x',
      response_format: 'verbose_json',
      timestamp_granularities: ['segment'],
      language: 'en',
      temperature: 0,
    });
    expect(transcription.language).toBe('english');
    expect(transcription.duration).toBe(2);
    expect(transcription.segments?.map((segment) => segment.text)).toEqual([' Hello there.', ' General Kenobi.']);
  });

  it('text, srt and vtt come back as strings', async () => {
    const client = gw.openai();
    const text = await client.audio.transcriptions.create({ file: await toFile(makeWav(1), 'a.wav'), model: 'whisper-x', response_format: 'text' });
    expect(text).toBe('Hello there. General Kenobi.');
    const srt = await client.audio.transcriptions.create({ file: await toFile(makeWav(1), 'a.wav'), model: 'whisper-x', response_format: 'srt' });
    expect(srt).toBe('1\n00:00:00,000 --> 00:00:01,200\nHello there.\n\n2\n00:00:01,200 --> 00:00:02,000\nGeneral Kenobi.\n');
    const vtt = await client.audio.transcriptions.create({ file: await toFile(makeWav(1), 'a.wav'), model: 'whisper-x', response_format: 'vtt' });
    expect(vtt).toBe('WEBVTT\n\n00:00:00.000 --> 00:00:01.200\nHello there.\n\n00:00:01.200 --> 00:00:02.000\nGeneral Kenobi.\n');
  });

  it('errors surface as SDK errors with the gateway code', async () => {
    const error = await gw
      .openai()
      .audio.transcriptions.create({ file: await toFile(Buffer.from('plain text, not audio'), 'a.mp3'), model: 'whisper-x' })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 400, code: 'VALIDATION_4005' });
  });
});
