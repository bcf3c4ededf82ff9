import { describe, expect, it } from 'vitest';
import { sniffAudioFormat } from '../../../src/audio/sniff.js';
import { makeWav } from '../../helpers/wav.js';

const bytes = (...values: Array<number | string>) => Buffer.concat(values.map((value) => (typeof value === 'string' ? Buffer.from(value, 'latin1') : Buffer.from([value]))));

describe('sniffAudioFormat (by content, not by name)', () => {
  it.each([
    ['mp3 with an ID3v2 tag', bytes('ID3', 4, 0, 0, 0, 0, 0, 0), 'mp3'],
    ['mp3 MPEG-1 layer III frame', bytes(0xff, 0xfb, 0x90, 0x64), 'mp3'],
    ['mpeg/mpga MPEG-2 layer III frame', bytes(0xff, 0xf3, 0x48, 0xc4), 'mp3'],
    ['mpeg layer II frame', bytes(0xff, 0xfd, 0x90, 0x64), 'mp3'],
    ['m4a (ftyp M4A)', bytes(0, 0, 0, 0x20, 'ftypM4A ', 0, 0, 0, 0), 'mp4'],
    ['mp4 (ftyp isom)', bytes(0, 0, 0, 0x18, 'ftypisom', 0, 0, 2, 0), 'mp4'],
    ['wav (RIFF/WAVE)', makeWav(0.01).subarray(0, 16), 'wav'],
    ['webm (EBML)', bytes(0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81), 'webm'],
  ])('%s', (_name, head, format) => {
    expect(sniffAudioFormat(head)).toBe(format);
  });

  it.each([
    ['plain text', Buffer.from('hello, this is not audio')],
    ['PNG', bytes(0x89, 'PNG', 0x0d, 0x0a, 0x1a, 0x0a)],
    ['RIFF that is not WAVE (AVI)', bytes('RIFF', 0, 0, 0, 0, 'AVI LIST')],
    ['AAC ADTS (layer bits 00)', bytes(0xff, 0xf1, 0x50, 0x80)],
    ['MPEG with reserved version', bytes(0xff, 0xeb, 0x90, 0x64)],
    ['empty', Buffer.alloc(0)],
    ['truncated ID', Buffer.from('ID')],
  ])('rejects %s', (_name, head) => {
    expect(sniffAudioFormat(head)).toBeNull();
  });
});
