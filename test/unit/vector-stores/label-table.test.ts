import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acceptedFiles } from '../../../src/vector-stores/accepted-files.js';
import { parseFilter } from '../../../src/vector-stores/filters.js';
import { LabelTable } from '../../../src/vector-stores/label-table.js';
import type { VectorStoreFileRecord } from '../../../src/vector-stores/records.js';
import { VectorStoreRepository } from '../../../src/vector-stores/repository.js';
import { keySealer } from '../../../src/vector-stores/sealer.js';
import { StoreData } from '../../../src/vector-stores/store-data.js';

type Range = { start: number; count: number; fileId: string };

/** The label's range by a plain scan (what the table's binary search must agree with). */
const naiveSlot = (ranges: Range[], label: number) => ranges.findIndex((range) => label >= range.start && label < range.start + range.count);

describe('the label table (label → file slot)', () => {
  it('agrees with a scan of the ranges across appends (some without chunks) and removals, past its first capacity', () => {
    const table = new LabelTable();
    const ranges: Range[] = [];
    let next = 0;
    let seed = 3;
    const random = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
    for (let step = 0; step < 400; step += 1) {
      if (ranges.length > 0 && random() < 0.3) {
        const slot = Math.floor(random() * ranges.length);
        ranges.splice(slot, 1);
        table.removeAt(slot);
      } else {
        const count = Math.floor(random() * 4); // 0: a file without chunks, starting where the next one does
        ranges.push({ start: next, count, fileId: `file-${step}` });
        table.append(next, count, `file-${step}`);
        next += count;
      }
      expect(table.length).toBe(ranges.length);
    }
    for (let label = -1; label <= next + 1; label += 1) {
      const slot = table.slotOf(label);
      expect(slot).toBe(naiveSlot(ranges, label));
      if (slot !== -1) expect([table.fileId(slot), table.start(slot), table.count(slot)]).toEqual([ranges[slot]!.fileId, ranges[slot]!.start, ranges[slot]!.count]);
    }
  });

  it('finds a file\'s slot by its start and id, among files without chunks starting at the same label', () => {
    const table = new LabelTable([
      { start: 0, count: 2, fileId: 'a' },
      { start: 2, count: 0, fileId: 'empty-1' },
      { start: 2, count: 0, fileId: 'empty-2' },
      { start: 2, count: 3, fileId: 'b' },
      { start: 5, count: 1, fileId: 'c' },
    ]);
    expect(['a', 'empty-1', 'empty-2', 'b', 'c'].map((fileId, slot) => table.slotOfFile(table.start(slot), fileId))).toEqual([0, 1, 2, 3, 4]);
    expect(table.slotOfFile(2, 'c')).toBe(-1);
    expect(table.slotOfFile(3, 'b')).toBe(-1);
    table.removeAt(table.slotOfFile(2, 'b'));
    expect(table.ranges()).toEqual([
      { fileId: 'a', start: 0, count: 2 },
      { fileId: 'empty-1', start: 2, count: 0 },
      { fileId: 'empty-2', start: 2, count: 0 },
      { fileId: 'c', start: 5, count: 1 },
    ]);
    expect(table.fileIdList()).toEqual(['a', 'empty-1', 'empty-2', 'c']);
    expect([2, 3, 4, 5].map((label) => table.slotOf(label))).toEqual([-1, -1, -1, 3]);
  });

  it('moves a memo down with its slot when an earlier file is removed, and drops the removed one', () => {
    const table = new LabelTable([
      { start: 0, count: 2, fileId: 'a' },
      { start: 2, count: 1, fileId: 'b' },
      { start: 3, count: 3, fileId: 'c' },
    ]);
    const attributesC = { lang: 'de' };
    table.setTag(1, 7, 'record-b');
    table.setTag(2, 7, 'record-c');
    table.setPassed(1, 3, { lang: 'en' }, true);
    table.setPassed(2, 3, attributesC, false);
    table.removeAt(1);
    expect(table.fileId(1)).toBe('c');
    expect(table.tagged(1, 7)).toBe(true);
    expect(table.tag(1)).toBe('record-c');
    expect(table.tagged(1, 8)).toBe(false);
    // A filter result: for its search's stamp and the attributes object it was computed on only.
    expect(table.passed(1, 3, attributesC)).toBe(false);
    expect(table.passed(1, 4, attributesC)).toBeUndefined();
    expect(table.passed(1, 3, { lang: 'de' })).toBeUndefined();
    expect(table.passed(0, 3, attributesC)).toBeUndefined();
    table.append(6, 1, 'd');
    expect(table.tagged(2, 7)).toBe(false);
  });
});

describe('a store keeps its label table with its files', () => {
  let folder: string;
  const sealer = keySealer(randomBytes(32));
  const vector = (seed: number) => Array.from({ length: 4 }, (_, index) => Math.sin(seed * 7 + index));
  const file = (count: number, seed: number) => ({
    chunks: Array.from({ length: count }, (_, index) => ({ text: `chunk ${seed} ${index}`, tokens: 3 })),
    vectors: Array.from({ length: count }, (_, index) => vector(seed * 10 + index)),
  });
  const open = () => StoreData.open('store-1', folder, sealer, { snapshotDelayMs: 3_600_000 });
  /** Every label's chunk, by the table (chunkAt), over the labels handed out so far. */
  const chunksByLabel = (data: StoreData, labels: number) => Array.from({ length: labels }, (_, label) => data.chunkAt(label));

  beforeEach(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'igw-label-table-'));
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('after attach, detach, a new version of a file and a restart', async () => {
    const data = await open();
    await data.commitFile('file-a', file(3, 1).chunks, file(3, 1).vectors); // labels 0-2
    await data.commitFile('file-b', file(2, 2).chunks, file(2, 2).vectors); // 3-4
    await data.commitFile('file-c', file(4, 3).chunks, file(4, 3).vectors); // 5-8
    await data.removeFile('file-b');
    await data.commitFile('file-a', file(2, 4).chunks, file(2, 4).vectors); // a new version: 9-10, 0-2 gone
    await data.commitFile('file-d', file(1, 5).chunks, file(1, 5).vectors); // 11
    const expected = [
      undefined, undefined, undefined, undefined, undefined,
      { fileId: 'file-c', chunkIndex: 0 }, { fileId: 'file-c', chunkIndex: 1 }, { fileId: 'file-c', chunkIndex: 2 }, { fileId: 'file-c', chunkIndex: 3 },
      { fileId: 'file-a', chunkIndex: 0 }, { fileId: 'file-a', chunkIndex: 1 },
      { fileId: 'file-d', chunkIndex: 0 },
    ];
    expect(chunksByLabel(data, 12)).toEqual(expected);
    expect(data.fileTable.length).toBe(3);
    await data.close();
    const reopened = await open();
    try {
      expect(chunksByLabel(reopened, 12)).toEqual(expected);
      // The ANN side filtered by slot: only file-d's chunk passes.
      const hits = await reopened.search(vector(50), 5, (fileId) => fileId === 'file-d');
      expect(hits.map((hit) => `${hit.fileId}#${hit.chunkIndex}`)).toEqual(['file-d#0']);
    } finally {
      await reopened.close();
    }
  });

  it('removes the file asked for when a file without chunks starts where the next one does', async () => {
    const data = await open();
    try {
      await data.commitFile('file-a', file(2, 1).chunks, file(2, 1).vectors); // labels 0-1
      await data.commitFile('file-empty', [], []); // no labels: starts at 2, as file-b does
      await data.commitFile('file-b', file(2, 2).chunks, file(2, 2).vectors); // 2-3
      await data.commitFile('file-c', file(1, 3).chunks, file(1, 3).vectors); // 4
      await data.removeFile('file-b');
      expect(chunksByLabel(data, 5).map((chunk) => chunk?.fileId)).toEqual(['file-a', 'file-a', undefined, undefined, 'file-c']);
      expect(data.fileTable.length).toBe(3);
      await data.removeFile('file-empty');
      expect(chunksByLabel(data, 5).map((chunk) => chunk?.fileId)).toEqual(['file-a', 'file-a', undefined, undefined, 'file-c']);
      expect(data.fileTable.length).toBe(2);
    } finally {
      await data.close();
    }
  });
});

describe('the files a search accepts, by slot', () => {
  let folder: string;
  let repository: VectorStoreRepository;
  const record = (id: string, attributes: Record<string, string>, status: VectorStoreFileRecord['status'] = 'completed'): VectorStoreFileRecord => ({
    id,
    vector_store_id: 'vs_1',
    account: 'acct_1',
    filename: `${id}.txt`,
    created_at: 1,
    seq: repository.nextSeq(),
    status,
    last_error: null,
    attributes,
    chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 800, chunk_overlap_tokens: 400 } },
    usage_bytes: 0,
    source: { kind: 'file' },
    batch_id: null,
  });

  beforeEach(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'igw-accepted-files-'));
    repository = await VectorStoreRepository.open(folder);
  });
  afterEach(async () => {
    await repository.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('follows status changes, a detach and a re-attach under the same id, and the filter per record', async () => {
    const table = new LabelTable([
      { start: 0, count: 1, fileId: 'file-a' },
      { start: 1, count: 1, fileId: 'file-b' },
    ]);
    const first = record('file-a', { lang: 'en' });
    await repository.insertFiles([first, record('file-b', { lang: 'de' }, 'in_progress')]);
    const any = acceptedFiles(repository, 'vs_1', table, undefined);
    expect(any(0)).toBe(first);
    expect(any(1)).toBeUndefined(); // not completed
    await repository.updateFile(repository.file('vs_1', 'file-b')!, { status: 'completed' });
    expect(any(1)?.id).toBe('file-b');

    // Detached and attached again: a new record, which the memo must not hide.
    await repository.deleteFile(first);
    expect(any(0)).toBeUndefined();
    const second = record('file-a', { lang: 'de' }, 'in_progress');
    await repository.insertFiles([second]);
    expect(any(0)).toBeUndefined();
    await repository.updateFile(second, { status: 'completed' });
    expect(any(0)).toBe(second);

    const german = acceptedFiles(repository, 'vs_1', table, parseFilter({ type: 'eq', key: 'lang', value: 'de' }));
    expect([german(0), german(1)].map((file) => file?.id)).toEqual(['file-a', 'file-b']);
    // Attributes replaced during the search: the filter is evaluated again.
    await repository.updateFile(second, { attributes: { lang: 'en' } });
    expect(german(0)).toBeUndefined();
    expect(german(1)?.id).toBe('file-b');
  });
});
