import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { JournalCollection } from '../store/journal-collection.js';
import { writeNewFilesSynced, type NewFile } from '../store/disk-thread.js';
import type { CommitTurn } from './commit-turns.js';
import { HnswIndex, type Neighbor } from './hnsw-index.js';
import type { LexicalScores } from './bm25-index.js';
import { LabelTable, type LabelRange } from './label-table.js';
import { LexicalIndex } from './lexical-index.js';
import type { Sealer } from './sealer.js';
import { ChunkReader } from './chunk-reader.js';
import { ChunkTexts } from './chunk-texts.js';
import { processTextBudget, type TextBudget } from './text-budget.js';
import { writePartsAtomic } from './snapshot-file.js';
import { decodeTextSegment, encodeTextSegment, type StoredChunk } from './text-segment.js';
import { VectorCopy } from './vector-copy.js';

export type { StoredChunk };

/** A hit of a store search, before it is joined with the file record. */
export interface ChunkHit {
  fileId: string;
  chunkIndex: number;
  score: number;
  text: string;
}

interface FileEntry {
  /** The file id. */
  id: string;
  /** Labels start..start+count-1 are this file's chunks, in order. */
  start: number;
  count: number;
  /** Chunk text bytes plus vector bytes (spec: storage is "chunk text plus embeddings"). */
  usage_bytes: number;
  /** Base name of its `chunks/` files: fresh per commit, so a new version never overwrites a committed one. */
  segment?: string;
}

/** The manifest's store-wide values (next to its file entries). */
interface ManifestMeta {
  dimensions: number | null;
  /** Labels are never reused: hnswlib keeps deleted ones. */
  next_label: number;
}

/** manifest.json as written before the manifest was journalled: one document rewritten per file. */
interface LegacyManifest {
  dimensions: number | null;
  next_label: number;
  files: Record<string, Omit<FileEntry, 'id'>>;
}

/** The committed state of the store (manifest.json + manifest.jsonl). The index snapshot may lag; segments never do. */
type Manifest = JournalCollection<FileEntry, ManifestMeta>;

function openManifest(folder: string): Promise<Manifest> {
  return JournalCollection.open<FileEntry, ManifestMeta>(folder, 'manifest', {
    key: (entry) => entry.id,
    meta: { dimensions: null, next_label: 0 },
    legacy: (document) => {
      const legacy = document as LegacyManifest;
      return {
        records: Object.entries(legacy.files ?? {}).map(([id, entry]) => ({ id, ...entry })),
        meta: { dimensions: legacy.dimensions ?? null, next_label: legacy.next_label ?? 0 },
      };
    },
  });
}

/** Under this many live chunks passing a filter, the search is exact (brute force) instead of ANN. */
export const EXACT_SEARCH_LIMIT = 5000;
/**
 * The chunk texts of an opened store are read into memory in slices of this many milliseconds of
 * the event loop, searches running between them (a search waits at most about this long for one).
 */
const TEXT_FILL_SLICE_MS = 4;
/** Decrypted, normalized vectors kept in memory (bytes), for exact searches under selective filters. */
const VECTOR_CACHE_BYTES = 64 * 1024 * 1024;
/** The index snapshot is written this long after the last change (a burst of ingests: one write at its end). */
const SNAPSHOT_DELAY_MS = 250;
/**
 * During a long burst the snapshot is also written once the points added since the last one reach
 * this many, or half the index, whichever is more: snapshot writes grow geometrically, so their
 * total cost stays proportional to the index (flat per file), and a crash re-adds at most that many.
 */
const SNAPSHOT_MIN_POINTS = 5000;
/** Changes below this fraction of the index are snapshotted only after a longer quiet time (QUIET_SNAPSHOT_MS). */
const SMALL_CHANGE_FRACTION = 0.05;
const QUIET_SNAPSHOT_MS = 30_000;
/** The vector copy of an opened index is filled from the index thread this many points at a time. */
const FILL_BATCH = 2048;

/** The additional data a file's sealed segment is bound to (the same in the data dir and in PostgreSQL). */
export function segmentAad(storeId: string, fileId: string, kind: 'text' | 'vec'): string {
  return `vector_store:${storeId}:${fileId}:${kind}`;
}

let suffixPool = Buffer.alloc(0);
let suffixAt = 0;
/**
 * 12 random hex characters naming one commit's segments (fresh per commit of a file), cut from a
 * 4 KB pool of random bytes: one randomBytes call per ~680 commits instead of one each (a
 * synchronous CSPRNG call was ~1% of the event loop per ingested file, issue 16).
 */
function freshSuffix(): string {
  if (suffixAt + 6 > suffixPool.length) {
    suffixPool = randomBytes(4096);
    suffixAt = 0;
  }
  suffixAt += 6;
  return suffixPool.toString('hex', suffixAt - 6, suffixAt);
}

function segmentName(fileId: string): string {
  return Buffer.from(fileId, 'utf8').toString('base64url');
}

/** Vectors as one flat little-endian float32 buffer (the `.vec` segment before sealing). */
export function encodeVectors(vectors: readonly (readonly number[])[], dimensions: number): Buffer {
  const flat = new Float32Array(vectors.length * dimensions);
  vectors.forEach((vector, row) => flat.set(vector, row * dimensions));
  return Buffer.from(flat.buffer, flat.byteOffset, flat.byteLength);
}

export function decodeVectors(bytes: Buffer, dimensions: number): number[][] {
  const flat = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const vectors: number[][] = [];
  for (let offset = 0; offset < flat.length; offset += dimensions) vectors.push(Array.from(flat.subarray(offset, offset + dimensions)));
  return vectors;
}

/** Rows of a flat Float32Array scaled to unit length in place (cosine = dot product after this). */
function normalizeRows(flat: Float32Array, dimensions: number): Float32Array {
  for (let offset = 0; offset < flat.length; offset += dimensions) {
    let norm = 0;
    for (let column = 0; column < dimensions; column += 1) norm += flat[offset + column]! * flat[offset + column]!;
    norm = Math.sqrt(norm);
    if (norm === 0) continue;
    for (let column = 0; column < dimensions; column += 1) flat[offset + column]! /= norm;
  }
  return flat;
}

function normalize(vector: readonly number[]): number[] {
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm);
  return norm === 0 ? [...vector] : vector.map((value) => value / norm);
}

/**
 * The contents of one vector store under `vector_stores/<id>/`:
 * - `chunks/<segment>.text` and `chunks/<segment>.vec`: a file's chunk texts and vectors, sealed,
 *   written and synced under a fresh name before the file counts as committed (segments no
 *   manifest entry names, from a crash mid-commit, are removed at open);
 * - `manifest.json` + `manifest.jsonl`: which files are committed and their label ranges, a
 *   journalled collection (one appended line per commit or removal, compacted in the background);
 * - `index.hnsw`: a snapshot of the HNSW index, written after a burst of changes (or during a long one).
 * A crash between steps is repaired on load: committed files missing from the snapshot are
 * re-added from their sealed vectors, labels of files no longer committed are marked deleted.
 * So nothing acknowledged is lost and an uncommitted file simply runs again.
 * All changes go through one queue per store (hnswlib must not be written while it saves).
 */
export class StoreData {
  private chain: Promise<unknown> = Promise.resolve();
  private index: HnswIndex | null = null;
  /** Set while a lost index is being loaded again (recoverIndex). */
  private recovering: Promise<void> | null = null;
  /** The vectors again, compact, for cosines outside the ANN walk (see vector-copy.ts); null before the first vector. */
  private copy: VectorCopy | null = null;
  /** Resolves once the vector copy holds every point of the index loaded at open (benches wait for it). */
  copyFilled: Promise<void> = Promise.resolve();
  /** BM25 over the chunk texts, by the same labels (set by open). */
  private lexical!: LexicalIndex;
  /** Mean unit vector of a spread of live chunks (the noise level of a query); null after any change. */
  private sample: Float32Array | null = null;
  /**
   * Committed files by start label, as typed arrays (label-table.ts): the label → file lookups of
   * searches, and the one record of the ranges (appended at commit, removed at removal).
   */
  readonly fileTable: LabelTable;
  private chunkCount = 0;
  /** Points added or deleted since the last index snapshot. */
  private unsaved = 0;
  /** Decrypted chunk texts of committed files, within the process's budget (chunk-texts.ts). */
  private readonly texts: ChunkTexts;
  /** Resolves once every committed file's texts are in memory, or as many as the budget allows (benches and tests wait for it). */
  textsFilled: Promise<void> = Promise.resolve();
  /** Single chunks of result hits whose file is not in memory, read through kept-open segments. */
  private readonly reader = new ChunkReader();
  private vectorCache = new Map<string, Float32Array>();
  private vectorCacheBytes = 0;
  private snapshotTimer: NodeJS.Timeout | null = null;
  private dirty = false;
  private closed = false;

  private constructor(
    readonly storeId: string,
    readonly folder: string,
    private readonly sealer: Sealer,
    private readonly manifest: Manifest,
    private readonly snapshotDelayMs: number,
    textBudget: TextBudget,
  ) {
    this.texts = new ChunkTexts(textBudget);
    const ranges: LabelRange[] = [...manifest.values()].map((entry) => ({ fileId: entry.id, start: entry.start, count: entry.count })).sort((left, right) => left.start - right.start);
    this.chunkCount = ranges.reduce((sum, range) => sum + range.count, 0);
    this.fileTable = new LabelTable(ranges);
  }

  /** Opens (or creates) a store folder and makes index and manifest agree. */
  static async open(storeId: string, folder: string, sealer: Sealer, options: { snapshotDelayMs?: number; textBudget?: TextBudget } = {}): Promise<StoreData> {
    await mkdir(path.join(folder, 'chunks'), { recursive: true, mode: 0o700 });
    const manifest = await openManifest(folder);
    // A manifest from an older layout may lack next_label: labels must never be handed out twice.
    let end = 0;
    for (const entry of manifest.values()) end = Math.max(end, entry.start + entry.count);
    if (manifest.meta.next_label < end) await manifest.setMeta({ next_label: end });
    const data = new StoreData(storeId, folder, sealer, manifest, options.snapshotDelayMs ?? SNAPSHOT_DELAY_MS, options.textBudget ?? processTextBudget);
    try {
      await data.removeOrphanSegments();
      await data.loadIndex();
      data.lexical = await LexicalIndex.open({ folder, storeId, sealer, ranges: data.fileTable.ranges(), readTexts: async (fileId) => (await data.chunks(fileId)).map((chunk) => chunk.text) });
    } catch (error) {
      data.texts.clear(); // texts read for the lexical index go back to the process's budget
      throw error;
    }
    if (data.lexical.changed) data.scheduleSnapshot(0);
    data.fillTexts();
    return data;
  }

  /** Committed file ids without loading anything else (used to reconcile records at start-up). */
  static async committedFiles(folder: string): Promise<Set<string>> {
    await mkdir(folder, { recursive: true, mode: 0o700 });
    const manifest = await openManifest(folder);
    const committed = new Set([...manifest.values()].map((entry) => entry.id));
    await manifest.close();
    return committed;
  }

  get dimensions(): number | null {
    return this.manifest.meta.dimensions;
  }

  /** Chunks currently searchable. */
  get liveChunks(): number {
    return this.chunkCount;
  }

  usageBytes(fileId: string): number {
    return this.manifest.get(fileId)?.usage_bytes ?? 0;
  }

  hasFile(fileId: string): boolean {
    return this.manifest.has(fileId);
  }

  private indexPath(): string {
    return path.join(this.folder, 'index.hnsw');
  }

  /** A committed file's segment (its manifest entry names it; entries from before segment names use the file id alone). */
  private segmentPath(fileId: string, kind: 'text' | 'vec', segment = this.manifest.get(fileId)?.segment): string {
    return path.join(this.folder, 'chunks', `${segment ?? segmentName(fileId)}.${kind}`);
  }

  private aad(fileId: string, kind: 'text' | 'vec'): string {
    return segmentAad(this.storeId, fileId, kind);
  }

  /** Segments written by a commit that never reached the manifest (crash or failure in between). */
  private async removeOrphanSegments(): Promise<void> {
    const folder = path.join(this.folder, 'chunks');
    const named = new Set<string>();
    for (const entry of this.manifest.values()) named.add(entry.segment ?? segmentName(entry.id));
    for (const name of await readdir(folder)) {
      if (!named.has(name.replace(/\.(text|vec)$/, ''))) await rm(path.join(folder, name), { force: true });
    }
  }

  /**
   * Loads the snapshot and makes it agree with the manifest. `reopen`: the index thread died (a
   * lost index, hnsw-index.ts), so the graph comes back the same way on a new thread; the vector
   * copy on this thread survived and is kept.
   */
  private async loadIndex(reopen = false): Promise<void> {
    const dimensions = this.manifest.meta.dimensions;
    if (dimensions === null) return;
    let index: HnswIndex | null = null;
    try {
      await stat(this.indexPath());
      index = await HnswIndex.load(this.indexPath(), dimensions);
    } catch {
      index = null; // no snapshot yet (or a torn one): rebuilt from the sealed vectors below
    }
    const present = new Set(index === null ? [] : await index.labels());
    const missing = this.fileTable.ranges().filter((range) => range.count > 0 && !present.has(range.start));
    index ??= HnswIndex.create(dimensions, Math.max(1024, this.liveChunks));
    // Labels of files that were removed after the snapshot was taken.
    const deleted = (await index.markDeleted([...present].filter((label) => this.fileAt(label) === undefined))) > 0;
    const vectors: number[][] = [];
    const labels: number[] = [];
    for (const range of missing) {
      const fileVectors = await this.readVectors(range.fileId, dimensions);
      fileVectors.forEach((vector, offset) => {
        vectors.push(vector);
        labels.push(range.start + offset);
      });
    }
    this.index = index;
    if (!reopen) {
      this.copy = new VectorCopy(dimensions);
      vectors.forEach((vector, row) => this.copy!.set(labels[row]!, vector));
      this.fillCopy();
    }
    if (vectors.length > 0) {
      await this.addPoints(vectors, labels);
      await this.index.save(this.indexPath());
    } else if (deleted) {
      this.scheduleSnapshot(0);
    }
  }

  /**
   * Copies the points of a loaded snapshot into the vector copy, FILL_BATCH at a time: the index
   * thread reads them out of hnswlib (0.05–0.1 ms a point, about 5 s at 100,000 chunks, on that
   * thread), this one only stores them. Until a label is copied, cosineAt asks for it on its own.
   */
  private fillCopy(): void {
    const labels: number[] = [];
    const table = this.fileTable;
    for (let slot = 0; slot < table.length; slot += 1) for (let offset = 0; offset < table.count(slot); offset += 1) labels.push(table.start(slot) + offset);
    this.copyFilled = (async () => {
      for (let at = 0; at < labels.length && !this.closed; at += FILL_BATCH) {
        await this.copyFromIndex(labels.slice(at, at + FILL_BATCH)).catch(() => undefined);
      }
    })();
  }

  /**
   * The index thread died (an OOM, an hnswlib failure): loads the index again on a new thread,
   * under the store's lock, once however many calls notice. Nothing is lost: the snapshot and the
   * sealed vectors of every committed file are on disk (the same repair as at open).
   */
  private recoverIndex(): Promise<void> {
    this.recovering ??= this.exclusive(() => this.reopenLostIndex()).finally(() => {
      this.recovering = null;
    });
    return this.recovering;
  }

  /** The reopening itself, for callers already holding the store's lock. */
  private async reopenLostIndex(): Promise<void> {
    if (this.index?.lost === true && !this.closed) await this.loadIndex(true);
  }

  /** Reads points the copy lacks back from the index into it (labels of removed files are skipped). */
  private async copyFromIndex(labels: readonly number[]): Promise<void> {
    if (this.index?.lost === true) await this.recoverIndex();
    const copy = this.copy;
    const missing = labels.filter((label) => copy !== null && !copy.has(label) && this.fileAt(label) !== undefined);
    if (this.index === null || copy === null || missing.length === 0) return;
    const dimensions = this.index.dimensions;
    const rows = await this.index.vectors(missing);
    // A file removed while the points were read: its labels must not come back.
    missing.forEach((label, row) => {
      if (this.fileAt(label) !== undefined) copy.set(label, rows.subarray(row * dimensions, (row + 1) * dimensions));
    });
  }

  private async addPoints(vectors: readonly (readonly number[])[], labels: number[]): Promise<void> {
    const index = this.index!;
    try {
      await index.add(vectors, labels);
    } catch (error) {
      // The index thread died with them: the commit stands (its vectors are sealed on disk), and
      // the reopened index re-adds them (recoverIndex).
      if (!index.lost) throw error;
    }
  }

  private async readVectors(fileId: string, dimensions: number): Promise<number[][]> {
    const sealed = await readFile(this.segmentPath(fileId, 'vec'));
    return decodeVectors(this.sealer.unseal(sealed, this.aad(fileId, 'vec')), dimensions);
  }

  /** A committed file's vectors as stored (`igw migrate --from-data-dir` copies them). */
  async vectors(fileId: string): Promise<number[][]> {
    const dimensions = this.manifest.meta.dimensions;
    if (!this.hasFile(fileId) || dimensions === null) return [];
    return this.readVectors(fileId, dimensions);
  }

  /** A file's vectors, unit length, as one flat array (cached, LRU by bytes). */
  private async unitVectors(fileId: string): Promise<Float32Array> {
    const cached = this.vectorCache.get(fileId);
    if (cached !== undefined) {
      this.vectorCache.delete(fileId);
      this.vectorCache.set(fileId, cached);
      return cached;
    }
    const plain = this.sealer.unseal(await readFile(this.segmentPath(fileId, 'vec')), this.aad(fileId, 'vec'));
    // Copy out of the Buffer pool into an aligned array of its own.
    const flat = normalizeRows(new Float32Array(plain.buffer.slice(plain.byteOffset, plain.byteOffset + plain.byteLength)), this.manifest.meta.dimensions!);
    this.cacheVectors(fileId, flat);
    return flat;
  }

  private cacheVectors(fileId: string, flat: Float32Array): void {
    this.dropVectors(fileId);
    this.vectorCache.set(fileId, flat);
    this.vectorCacheBytes += flat.byteLength;
    for (const [oldest, oldFlat] of this.vectorCache) {
      if (this.vectorCacheBytes <= VECTOR_CACHE_BYTES || oldest === fileId) break;
      this.vectorCache.delete(oldest);
      this.vectorCacheBytes -= oldFlat.byteLength;
    }
  }

  private dropVectors(fileId: string): void {
    const flat = this.vectorCache.get(fileId);
    if (flat === undefined) return;
    this.vectorCache.delete(fileId);
    this.vectorCacheBytes -= flat.byteLength;
  }

  private fileAt(label: number): { fileId: string; start: number } | undefined {
    const slot = this.fileTable.slotOf(label);
    return slot === -1 ? undefined : { fileId: this.fileTable.fileId(slot), start: this.fileTable.start(slot) };
  }

  private exclusive<T>(run: () => Promise<T>): Promise<T> {
    const next = this.chain.then(run, run);
    this.chain = next.catch(() => undefined);
    return next;
  }

  /**
   * Stores a file's chunks and vectors and makes them searchable. Resolves once the file is
   * durable (segments fsynced, manifest line fdatasync'ed): from then on a crash cannot lose it.
   */
  async commitFile(fileId: string, chunks: readonly StoredChunk[], vectors: readonly (readonly number[])[], turn?: CommitTurn): Promise<void> {
    if (this.closed) throw new Error('vector store data is closed');
    if (chunks.length !== vectors.length) throw new Error('one vector per chunk expected');
    const dimensions = vectors[0]?.length ?? null;
    this.checkDimensions(dimensions);
    // Segments are written and synced before the store's lock is taken, so concurrent commits wait
    // for the disk together; the fresh name keeps a committed version of this file untouched.
    const segment = `${segmentName(fileId)}.${freshSuffix()}`;
    const written: string[] = [];
    const segmentFile = (kind: 'text' | 'vec', bytes: Buffer): NewFile => {
      const target = this.segmentPath(fileId, kind, segment);
      written.push(target);
      return { path: target, bytes };
    };
    try {
      // Both segments in one message to the disk thread (not eight thread-pool round trips).
      await writeNewFilesSynced([
        segmentFile('text', encodeTextSegment(chunks, this.sealer, this.aad(fileId, 'text'))),
        ...(dimensions === null ? [] : [segmentFile('vec', this.sealer.seal(encodeVectors(vectors, dimensions), this.aad(fileId, 'vec')))]),
      ]);
      // The caller's place in the store's commit order (labels then follow that order); the next
      // commit may go as soon as this one's labels are taken, not once it is durable.
      await turn?.ready;
      const { durable } = await this.exclusive(async () => {
        if (this.closed) throw new Error('vector store data is closed');
        this.checkDimensions(dimensions);
        if (this.hasFile(fileId)) await this.removeNow(fileId);
        const start = this.manifest.meta.next_label;
        let added: Promise<void> = Promise.resolve();
        if (dimensions !== null) {
          await this.reopenLostIndex();
          this.index ??= HnswIndex.create(dimensions);
          this.copy ??= new VectorCopy(dimensions);
          // Sent to the index thread, not awaited under the lock: it takes changes in order, and the
          // next commit need not wait for a round trip to it (under load, a wait for that thread's turn).
          added = this.addPoints(vectors, vectors.map((_, offset) => start + offset));
          added.catch(() => undefined);
          vectors.forEach((vector, offset) => this.copy!.set(start + offset, vector));
        }
        const textBytes = chunks.reduce((sum, chunk) => sum + Buffer.byteLength(chunk.text, 'utf8'), 0);
        // Appended in order under the lock, made durable after it (one fdatasync for every commit
        // waiting meanwhile). Meta and entry go out in the same journal write.
        const durable = Promise.all([
          this.manifest.setMeta({ dimensions: dimensions ?? this.manifest.meta.dimensions, next_label: start + vectors.length }),
          this.manifest.put({ id: fileId, start, count: vectors.length, usage_bytes: textBytes + vectors.length * (dimensions ?? 0) * 4, segment }),
        ]);
        this.lexical.addFile(start, chunks.map((chunk) => chunk.text));
        // Labels only grow: the new range goes last.
        this.fileTable.append(start, vectors.length, fileId);
        this.sample = null;
        this.chunkCount += vectors.length;
        // The texts are in hand: held without a read (when they fit in the budget).
        this.holdTexts(fileId, chunks);
        this.scheduleSnapshot(vectors.length);
        turn?.done();
        return { durable: Promise.all([durable, added]) };
      });
      await durable;
    } catch (error) {
      if (this.manifest.get(fileId)?.segment !== segment) for (const target of written) await rm(target, { force: true });
      throw error;
    }
  }

  private checkDimensions(dimensions: number | null): void {
    const known = this.manifest.meta.dimensions;
    if (dimensions !== null && known !== null && dimensions !== known) {
      throw new Error(`the embedding model returned ${dimensions} dimensions; this store holds ${known}`);
    }
  }

  /** Removes a file: its labels are marked deleted, its segments deleted. */
  removeFile(fileId: string): Promise<void> {
    return this.exclusive(() => this.removeNow(fileId));
  }

  private async removeNow(fileId: string): Promise<void> {
    const entry = this.manifest.get(fileId);
    if (entry === undefined) return;
    const segments = [this.segmentPath(fileId, 'text'), this.segmentPath(fileId, 'vec')];
    const labels = Array.from({ length: entry.count }, (_, offset) => entry.start + offset);
    for (const label of labels) this.copy?.delete(label);
    // In order after the file's add on the index thread; not awaited, like the add (commitFile).
    this.index?.markDeleted(labels).catch(() => undefined);
    this.lexical.removeLabels(entry.start, entry.count);
    await this.manifest.delete(fileId);
    this.fileTable.removeAt(this.fileTable.slotOfFile(entry.start, fileId));
    this.sample = null;
    this.chunkCount -= entry.count;
    this.texts.drop(fileId);
    this.dropVectors(fileId);
    this.reader.forget(segments[0]!);
    for (const segment of segments) await rm(segment, { force: true });
    this.scheduleSnapshot(entry.count);
  }

  /** `points` changed: snapshot once the changes pause, or now when many piled up (see SNAPSHOT_MIN_POINTS). */
  private scheduleSnapshot(points: number): void {
    this.dirty = true;
    this.unsaved += points;
    if (this.closed) return;
    if (this.snapshotTimer !== null) clearTimeout(this.snapshotTimer);
    this.snapshotTimer = null;
    if (this.unsaved >= Math.max(SNAPSHOT_MIN_POINTS, this.chunkCount / 2)) {
      this.unsaved = 0;
      // Queued behind the current change (this runs inside the store's exclusive section).
      void this.snapshot().catch(() => undefined);
      return;
    }
    // A pause after a few changes to a large store waits longer: every snapshot writes the whole
    // index, so a slow trickle of files must not rewrite it at each short pause.
    const few = this.unsaved < this.chunkCount * SMALL_CHANGE_FRACTION;
    this.snapshotTimer = setTimeout(() => {
      this.snapshotTimer = null;
      void this.snapshot().catch(() => undefined);
    }, few ? Math.max(this.snapshotDelayMs, QUIET_SNAPSHOT_MS) : this.snapshotDelayMs);
    this.snapshotTimer.unref();
  }

  /** Writes the index snapshot if anything changed since the last one. */
  snapshot(): Promise<void> {
    return this.exclusive(async () => {
      if (!this.dirty) return;
      this.dirty = false;
      this.unsaved = 0;
      await this.reopenLostIndex();
      await this.index?.save(this.indexPath());
      await this.lexical.save();
      await this.saveTexts();
    });
  }

  private textImagePath(): string {
    return path.join(this.folder, 'texts.img');
  }

  private textImageAad(): string {
    return `vector_store:${this.storeId}:texts`;
  }

  /** The segment name a committed file has now ('' for an entry from before segment names); undefined when not committed. */
  private readonly currentSegment = (fileId: string): string | undefined => {
    const entry = this.manifest.get(fileId);
    return entry === undefined ? undefined : (entry.segment ?? '');
  };

  /**
   * Writes the held texts as one sealed image (`texts.img`, chunk-texts.ts) when they changed
   * since the last: the next open reads them back with one read and one unseal instead of one
   * unseal per chunk (~12 µs each, over a second of the event loop at 100,000 chunks). Runs in
   * the store's exclusive section, so no commit or removal changes them while it is written.
   */
  private async saveTexts(): Promise<void> {
    if (!this.texts.changed) return;
    this.texts.markSaved();
    try {
      await writePartsAtomic(this.textImagePath(), await this.sealer.sealInSlices(this.texts.imageParts(this.currentSegment), this.textImageAad()));
    } catch (error) {
      this.texts.markChanged();
      throw error;
    }
  }

  /** A file's chunks (decrypted), in order: from memory, else read from its segment (and then held). */
  async chunks(fileId: string): Promise<StoredChunk[]> {
    const held = this.texts.chunks(fileId);
    if (held !== undefined) return held;
    const segment = this.manifest.get(fileId)?.segment;
    if (!this.hasFile(fileId)) return [];
    const chunks = decodeTextSegment(await readFile(this.segmentPath(fileId, 'text', segment)), this.sealer, this.aad(fileId, 'text'));
    // Removed or replaced while it was read: what was read is no longer this file's.
    if (this.hasFile(fileId) && this.manifest.get(fileId)?.segment === segment) this.holdTexts(fileId, chunks);
    return chunks;
  }

  private holdTexts(fileId: string, chunks: readonly StoredChunk[]): boolean {
    return !this.closed && this.texts.hold(fileId, chunks);
  }

  /**
   * Reads every committed file's texts into memory after the store opened, TEXT_FILL_SLICE_MS of
   * the event loop at a time; until a file's are in, its hits are read from its segment. The reads
   * are synchronous on purpose: a read through libuv's thread pool costs ~28 µs of CPU on a
   * 2-core VM (the hop between threads), a read syscall ~1 µs, and the segments are small local
   * files. Each file is read, checked against the manifest and held in one synchronous step, so a
   * removal or a new version cannot interleave. Stops when the budget is spent (the rest is read
   * per hit, as before issue 16).
   */
  private fillTexts(): void {
    const fileIds = this.fileTable.fileIdList();
    this.textsFilled = (async () => {
      await this.holdTextImage();
      let at = 0;
      let spent = false;
      while (at < fileIds.length && !this.closed && !spent) {
        const sliceEnd = performance.now() + TEXT_FILL_SLICE_MS;
        while (at < fileIds.length && performance.now() < sliceEnd && !spent) {
          spent = !this.fillFile(fileIds[at]!);
          at += 1;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      // What was read from segments (or dropped from a stale image) goes into the image now, not at the next change.
      if (this.texts.changed) await this.exclusive(() => (this.closed ? Promise.resolve() : this.saveTexts())).catch(() => undefined);
    })();
  }

  /**
   * Holds the files of the last text image that are still the committed version (one read and one
   * unseal of the whole image: tens of ms at 100,000 chunks, once). Without a readable image
   * (none yet, torn, or not ours) every file is read from its segment by the fill.
   */
  private async holdTextImage(): Promise<void> {
    let image: Buffer;
    try {
      image = this.sealer.unseal(await readFile(this.textImagePath()), this.textImageAad());
    } catch {
      return;
    }
    if (this.closed) return;
    try {
      if (this.texts.holdImage(image, this.currentSegment)) this.texts.markChanged();
    } catch {
      this.texts.markChanged(); // an image of another layout: rewritten from what the fill holds
    }
  }

  /** Holds one committed file's texts read from its segment; false once the budget is spent. */
  private fillFile(fileId: string): boolean {
    if (this.closed || this.texts.has(fileId) || !this.hasFile(fileId)) return true;
    let chunks: StoredChunk[];
    try {
      chunks = decodeTextSegment(readFileSync(this.segmentPath(fileId, 'text')), this.sealer, this.aad(fileId, 'text'));
    } catch {
      return true; // unreadable now: its hits are read (and any error reported) when asked for
    }
    return this.holdTexts(fileId, chunks);
  }

  /**
   * Best chunks for a query vector. With `acceptFile`, only those files' chunks count: when few
   * chunks pass, every one of them is scored exactly (an ANN walk that rejects most nodes would
   * return too few or miss the best); otherwise hnswlib filters during the walk. `text: false`
   * leaves the hits' text empty (a caller that keeps only some of them reads those itself).
   */
  async search(query: readonly number[], k: number, acceptFile?: (fileId: string) => boolean, options: { text?: boolean } = {}): Promise<ChunkHit[]> {
    const table = this.fileTable;
    const neighbors = await this.nearest(query, k, acceptFile === undefined ? undefined : (slot) => acceptFile(table.fileId(slot)));
    const hits: ChunkHit[] = [];
    for (const neighbor of neighbors) {
      const file = this.fileAt(neighbor.label);
      if (file === undefined) continue;
      const chunkIndex = neighbor.label - file.start;
      const text = options.text === false ? '' : await this.chunkText(file.fileId, chunkIndex);
      hits.push({ fileId: file.fileId, chunkIndex, score: neighbor.score, text });
    }
    return hits;
  }

  /** The labels of the best chunks for a query vector, with their cosine (see search); `acceptSlot` takes slots of `fileTable`. */
  async nearest(query: readonly number[], k: number, acceptSlot?: (slot: number) => boolean): Promise<Neighbor[]> {
    const dimensions = this.manifest.meta.dimensions;
    if (this.index === null || dimensions === null || k <= 0) return [];
    if (query.length !== dimensions) {
      throw new Error(`the query embedding has ${query.length} dimensions; this store holds ${dimensions}`);
    }
    if (this.index.lost) await this.recoverIndex();
    // A walk the dying thread owed is asked again of the reopened index.
    const walk = (acceptRanges?: Int32Array) =>
      this.index!.search(query, k, acceptRanges).catch(async (error: unknown) => {
        if (this.index?.lost !== true) throw error;
        await this.recoverIndex();
        return this.index.search(query, k, acceptRanges);
      });
    if (acceptSlot === undefined) return walk();
    // The accepted slots straight into a typed array (no object per file: a filter over the
    // 100,000-file store asks about every file).
    const table = this.fileTable;
    let slots = new Int32Array(64);
    let acceptedFiles = 0;
    let acceptedChunks = 0;
    for (let slot = 0; slot < table.length; slot += 1) {
      if (table.count(slot) === 0 || !acceptSlot(slot)) continue;
      if (acceptedFiles === slots.length) {
        const grown = new Int32Array(slots.length * 2);
        grown.set(slots);
        slots = grown;
      }
      slots[acceptedFiles++] = slot;
      acceptedChunks += table.count(slot);
    }
    if (acceptedChunks === 0) return [];
    if (acceptedChunks <= EXACT_SEARCH_LIMIT) {
      const accepted = Array.from(slots.subarray(0, acceptedFiles), (slot) => ({ start: table.start(slot), count: table.count(slot), fileId: table.fileId(slot) }));
      return this.exactSearch(query, k, accepted);
    }
    // The index thread filters its walk by these label ranges (sorted by start, as the slots are).
    const acceptRanges = new Int32Array(acceptedFiles * 2);
    for (let index = 0; index < acceptedFiles; index += 1) {
      acceptRanges[index * 2] = table.start(slots[index]!);
      acceptRanges[index * 2 + 1] = table.count(slots[index]!);
    }
    return walk(acceptRanges);
  }

  /**
   * Normalised BM25 (in [0, 1)) of every chunk sharing a term with the query, by label: the best
   * picked now, any other label's on demand, as the index is now (see Bm25Index.score).
   */
  lexicalScores(query: string, bestKept?: number): LexicalScores {
    return this.lexical.score(query, bestKept);
  }

  /** The chunk a label stands for (undefined once its file is removed). */
  chunkAt(label: number): { fileId: string; chunkIndex: number } | undefined {
    const slot = this.fileTable.slotOf(label);
    return slot === -1 ? undefined : { fileId: this.fileTable.fileId(slot), chunkIndex: label - this.fileTable.start(slot) };
  }

  labelOf(fileId: string, chunkIndex: number): number | undefined {
    const entry = this.manifest.get(fileId);
    return entry === undefined || chunkIndex < 0 || chunkIndex >= entry.count ? undefined : entry.start + chunkIndex;
  }

  /** Cosine of a unit-length query to a live chunk's vector (from the vector copy; read from the index first when not yet copied). */
  async cosineAt(unitQuery: Float32Array, label: number): Promise<number> {
    const copied = this.copiedCosine(unitQuery, label);
    if (copied !== undefined || this.copy === null) return copied ?? 0;
    await this.copyFromIndex([label]);
    return this.copy.cosine(unitQuery, label) ?? 0;
  }

  /**
   * cosineAt without a promise when the vector copy holds the label (undefined when it does not:
   * cosineAt reads it); `columns`: the query's nonzero columns (vector-copy.ts nonzeroColumns). A search asks this for each of its lexical candidates: a promise and a
   * turn of the microtask queue each cost more than the dot product.
   */
  copiedCosine(unitQuery: Float32Array, label: number, columns?: Int32Array | null): number | undefined {
    return this.copy === null ? 0 : this.copy.cosine(unitQuery, label, columns);
  }

  /**
   * Mean cosine of a unit-length query to a spread of up to 64 live chunks: where chunks
   * unrelated to the query score with this store's embedding model. The sample is taken evenly
   * over the labels and kept, as the mean of its unit vectors, until the store changes (the mean
   * of the cosines is the query's dot product with that mean).
   */
  async noiseLevel(unitQuery: Float32Array): Promise<number> {
    const known = this.knownNoiseLevel(unitQuery);
    if (known !== undefined || this.copy === null) return known ?? 0;
    const live = this.liveChunks;
    const count = Math.min(64, live);
    const labels: number[] = [];
    const table = this.fileTable;
    let slot = 0;
    let before = 0;
    for (let row = 0; row < count; row += 1) {
      const position = Math.floor(((row + 0.5) * live) / count);
      while (before + table.count(slot) <= position) before += table.count(slot++);
      labels.push(table.start(slot) + position - before);
    }
    await this.copyFromIndex(labels);
    const mean = new Float32Array(this.manifest.meta.dimensions ?? 0);
    for (const label of labels) this.copy.addTo(mean, label, 1 / count);
    this.sample = mean;
    return dot(unitQuery, mean);
  }

  /** noiseLevel without a promise once its sample is taken (undefined until then: noiseLevel takes it). */
  knownNoiseLevel(unitQuery: Float32Array): number | undefined {
    if (this.index === null || this.copy === null) return 0;
    return this.sample === null ? undefined : dot(unitQuery, this.sample);
  }

  /** The text of a live chunk held in memory (chunk-texts.ts), without a promise; undefined when chunkText must read it. */
  heldText(fileId: string, chunkIndex: number): string | undefined {
    return this.texts.text(fileId, chunkIndex);
  }

  /** The text of a live chunk: from memory, else one read through the kept-open segments. */
  async chunkText(fileId: string, chunkIndex: number): Promise<string> {
    const held = this.heldText(fileId, chunkIndex);
    if (held !== undefined) return held;
    const label = this.labelOf(fileId, chunkIndex);
    if (label === undefined) return '';
    const segment = this.manifest.get(fileId)?.segment;
    let read: { chunk: StoredChunk | undefined; all?: StoredChunk[] };
    try {
      read = await this.reader.read(this.segmentPath(fileId, 'text', segment), chunkIndex, this.sealer, this.aad(fileId, 'text'));
    } catch (error) {
      if (this.labelOf(fileId, chunkIndex) === label) throw error;
      read = { chunk: undefined };
    }
    // The file may have been removed or replaced while the segment was read: its label then no longer stands for this chunk.
    if (this.labelOf(fileId, chunkIndex) !== label) return this.chunkText(fileId, chunkIndex);
    // A segment sealed whole was decoded entirely: its chunks are held like a filled file's.
    if (read.all !== undefined && this.manifest.get(fileId)?.segment === segment) this.holdTexts(fileId, read.all);
    return read.chunk?.text ?? '';
  }

  /** Scores every chunk of the given files (their vectors decrypted once, then cached). */
  private async exactSearch(query: readonly number[], k: number, ranges: readonly LabelRange[]): Promise<Neighbor[]> {
    const unit = Float32Array.from(normalize(query));
    const dimensions = unit.length;
    const scored: Neighbor[] = [];
    for (const range of ranges) {
      const flat = await this.unitVectors(range.fileId);
      for (let row = 0; row < range.count; row += 1) {
        const offset = row * dimensions;
        let dot = 0;
        for (let column = 0; column < dimensions; column += 1) dot += unit[column]! * flat[offset + column]!;
        scored.push({ label: range.start + row, score: dot });
      }
    }
    scored.sort((left, right) => right.score - left.score);
    return scored.slice(0, k);
  }

  /** Flushes a pending snapshot and refuses further changes. */
  async close(): Promise<void> {
    if (this.snapshotTimer !== null) {
      clearTimeout(this.snapshotTimer);
      this.snapshotTimer = null;
    }
    await this.snapshot();
    this.closed = true;
    this.reader.close();
    this.texts.clear();
    if (this.index?.lost !== true) await this.index?.close();
    await this.manifest.close();
  }
}

/** The dot product of two vectors of the same length. */
function dot(left: Float32Array, right: Float32Array): number {
  let sum = 0;
  for (let column = 0; column < left.length; column += 1) sum += left[column]! * right[column]!;
  return sum;
}
