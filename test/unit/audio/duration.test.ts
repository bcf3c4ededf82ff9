import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audioDurationSeconds } from '../../../src/audio/duration.js';
import { makeWav } from '../../helpers/wav.js';

describe('audioDurationSeconds (the file header, via music-metadata)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'igw-audio-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads the duration of a generated WAV', async () => {
    const file = path.join(dir, 'a.wav');
    await writeFile(file, makeWav(2.5, 16000));
    expect(await audioDurationSeconds(file)).toBeCloseTo(2.5, 3);
  });

  it('is undefined for something that is not audio', async () => {
    const file = path.join(dir, 'x.bin');
    await writeFile(file, 'not audio at all');
    expect(await audioDurationSeconds(file)).toBeUndefined();
  });
});
