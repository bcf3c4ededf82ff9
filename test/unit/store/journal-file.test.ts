import { constants } from 'node:fs';
import { mkdtemp, readdir, readFile, readlink, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { JournalFile } from '../../../src/store/journal-file.js';

const folder = await mkdtemp(path.join(tmpdir(), 'igw-unit-journal-file-'));
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** The open flags (octal in /proc) of every descriptor of this process open on `file`. */
async function openFlags(file: string): Promise<number[]> {
  const flags: number[] = [];
  for (const fd of await readdir('/proc/self/fd')) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
    if (target !== file) continue;
    const info = await readFile(`/proc/self/fdinfo/${fd}`, 'utf8').catch(() => '');
    const match = /^flags:\s+([0-7]+)$/m.exec(info);
    if (match) flags.push(Number.parseInt(match[1]!, 8));
  }
  return flags;
}

describe('JournalFile', () => {
  it('acknowledges concurrent lines in order, 0600, written through one O_DSYNC append descriptor (durable without a separate fdatasync)', async () => {
    const file = path.join(folder, 'lines.jsonl');
    const journal = new JournalFile(file);
    await Promise.all(Array.from({ length: 25 }, (_, at) => journal.append(JSON.stringify({ at }))));
    expect(await journal.readLines()).toEqual(Array.from({ length: 25 }, (_, at) => JSON.stringify({ at })));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const flags = await openFlags(file);
    expect(flags).toHaveLength(1);
    expect(flags[0]! & constants.O_DSYNC).toBe(constants.O_DSYNC);
    expect(flags[0]! & constants.O_APPEND).toBe(constants.O_APPEND);
    await journal.close();
    expect(await openFlags(file)).toEqual([]);
  });

  it('appends after the lines already there, also after a close and reopen', async () => {
    const file = path.join(folder, 'reopen.jsonl');
    const first = new JournalFile(file);
    await first.append('{"n":1}');
    await first.close();
    const second = new JournalFile(file);
    await second.append('{"n":2}');
    await second.close();
    expect(await second.readLines()).toEqual(['{"n":1}', '{"n":2}']);
  });
});
