import { describe, expect, it } from 'vitest';
import { formatTimestamp, renderSrt, renderVtt } from '../../../src/audio/subtitles.js';
import { normalizeTranscription } from '../../../src/providers/openai-compatible/transcribe.js';
import { readRecorded } from '../../helpers/recorded.js';

const capture = (name: string) => {
  const text = readRecorded(`audio/${name}`);
  return { json: JSON.parse(text) as unknown, text };
};

describe('subtitle timestamps', () => {
  it('formats SRT and VTT times', () => {
    expect(formatTimestamp(0, ',')).toBe('00:00:00,000');
    expect(formatTimestamp(8.2, ',')).toBe('00:00:08,200');
    expect(formatTimestamp(3725.0456, '.')).toBe('01:02:05.046');
    expect(formatTimestamp(59.9996, '.')).toBe('00:01:00.000');
    expect(formatTimestamp(-1, ',')).toBe('00:00:00,000');
  });
});

describe('rendering the recorded Mistral segment capture', () => {
  // Read lazily: a skipped suite's body still runs to collect its tests.
  let cached: ReturnType<typeof normalizeTranscription> | undefined;
  const mistral = () => {
    if (cached === undefined) {
      const { json, text } = capture('mistral-transcription-segments.json');
      cached = normalizeTranscription(json, text, 'mistral');
    }
    return cached;
  };

  it('normalizes segments, language and the duration from usage', () => {
    expect(mistral().segments).toHaveLength(4);
    expect(mistral().segments![0]).toMatchObject({ id: 0, start: 0.1, end: 8.2 });
    expect(mistral().language).toBeNull();
    expect(mistral().duration).toBe(36);
  });

  it('renders SRT', () => {
    const srt = renderSrt(mistral().segments!);
    expect(srt.startsWith('1\n00:00:00,100 --> 00:00:08,200\nGalileo was an American robotic space program')).toBe(true);
    expect(srt).toContain('\n\n2\n00:00:09,100 --> 00:00:17,300\nNamed after the Italian astronomer');
    expect(srt).toContain('\n\n4\n00:00:30,200 --> 00:00:35,900\nafter gravity assist flybys');
    expect(srt.split('-->')).toHaveLength(5);
  });

  it('renders WebVTT', () => {
    const vtt = renderVtt(mistral().segments!);
    expect(vtt.startsWith('WEBVTT\n\n00:00:00.100 --> 00:00:08.200\nGalileo')).toBe(true);
    expect(vtt).toContain('\n\n00:00:18.100 --> 00:00:29.900\nIt was delivered into Earth orbit');
    expect(vtt.endsWith('orbit Jupiter.\n')).toBe(true);
  });
});

describe('the recorded OpenAI verbose_json capture (words, no segments)', () => {
  it('keeps duration, language and words', () => {
    const { json, text } = capture('openai-transcription-verbose-json-words.json');
    const result = normalizeTranscription(json, text, 'openai');
    expect(result.duration).toBeCloseTo(36.71, 2);
    expect(result.language).toBe('english');
    expect(result.segments).toBeUndefined();
    expect(result.words?.[0]).toEqual({ word: 'Galileo', start: 0, end: 0.6600000262260437 });
  });

  it('rejects an answer without text as INFERENCE_3105', () => {
    expect(() => normalizeTranscription({ nope: 1 }, '{"nope":1}', 'x')).toThrow(expect.objectContaining({ code: 'INFERENCE_3105' }));
  });
});
