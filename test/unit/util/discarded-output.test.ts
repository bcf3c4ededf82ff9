import { closeSync, openSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { devNull, tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writesNowhere } from '../../../src/util/discarded-output.js';

describe('writesNowhere', () => {
  it('is true for the null device only', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'igw-nowhere-'));
    const nullFd = openSync(devNull, 'w');
    const fileFd = openSync(path.join(folder, 'log.txt'), 'w');
    try {
      expect(writesNowhere(nullFd)).toBe(true);
      expect(writesNowhere(fileFd)).toBe(false);
    } finally {
      closeSync(nullFd);
      closeSync(fileFd);
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('is false for a descriptor that is not open (the lines are then written as always)', () => {
    const fd = openSync(devNull, 'w');
    closeSync(fd);
    expect(writesNowhere(fd)).toBe(false);
  });
});
