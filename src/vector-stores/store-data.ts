import { mkdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { AtomicJsonFile } from '../store/atomic-json-file.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { HnswIndex, WORKER_BUILD_THRESHOLD, type Neighbor } from './hnsw-index.js';
import { LexicalIndex } from './lexical-index.js';
import type { Sealer } from './sealer.js';

/** One chunk of a file as stored: its text and token count. */
export interface StoredChunk {
  text: string;
  tokens: number;
}

/** A hit of a store search, before it is joined with the file record. */
export interface ChunkHit {
  fileId: string;
  chunkIndex: number;
  score: number;
  text: string;
}

interface FileEntry {
  /** Labels start..start+count-1 are this file's chunks, in order. */
  start: number;
  count: number;
  /** Chunk text bytes plus vector bytes (spec: storage is "chunk text plus embeddings"). */
  usage_bytes: number;
}

/** manifest.json: the committed state of the store. The index snapshot may lag; segments never do. */
interface Manifest {
  dimensions: number | null;
  next_label: number;
  files: Record<string, FileEntry>;
}

/** Under this many live chunks passing a filter, the search is exact (brute force) instead of ANN. */
export const EXACT_SEARCH_LIMIT = 5000;
/** Decrypted chunk texts kept in memory (characters), for result text and content pages. */
const TEXT_CACHE_CHARS = 32 * 1024 * 1024;
/** Decrypted, normalized vectors kept in memory (bytes), for exact searches under selective filters. */
const VECTOR_CACHE_BYTES = 64 * 1024 * 1024;
/** Coalesces index snapshots: one write after a burst of ingests, not one per file. */
const SNAPSHOT_DELAY_MS = 250;

function segmentName(fileId: string): string {
  return Buffer.from(fileId, 'utf8').toString('base64url');
}

function encodeVectors(vectors: readonly (readonly number[])[], dimensions: number): Buffer {
  const flat = new Float32Array(vectors.length * dimensions);
  vectors.forEach((vector, row) => flat.set(vector, row * dimensions));
  return Buffer.from(flat.buffer, flat.byteOffset, flat.byteLength);
}

function decodeVectors(bytes: Buffer, dimensions: number): number[][] {
  const flat = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const vectors: number[][] = [];
  for (let offset = 0; offset < flat.length; offset += dimensions) vectors.push(Array.from(flat.subarray(offset, offset + dimensions)));
  return vectors;
}

/** Dot product of a unit query with a vector, divided by the vector's length: their cosine. */
function dotUnit(unitQuery: Float32Array, vector: ArrayLike<number>): number {
  let dot = 0;
  let norm = 0;
  for (let column = 0; column < unitQuery.length; column += 1) {
    dot += unitQuery[column]! * vector[column]!;
    norm += vector[column]! * vector[column]!;
  }
  return norm === 0 ? 0 : dot / Math.sqrt(norm);
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
 * - `chunks/<file>.text` and `chunks/<file>.vec`: a file's chunk texts and vectors, sealed,
 *   written (fsync + rename) before the file counts as committed;
 * - `manifest.json`: which files are committed and their label ranges (atomic JSON);
 * - `index.hnsw`: a snapshot of the HNSW index, written shortly after changes.
 * A crash between steps is repaired on load: committed files missing from the snapshot are
 * re-added from their sealed vectors, labels of files no longer committed are marked deleted.
 * So nothing acknowledged is lost and an uncommitted file simply runs again.
 * All changes go through one queue per store (hnswlib must not be written while it saves).
 */
export class StoreData {
  private chain: Promise<unknown> = Promise.resolve();
  private index: HnswIndex | null = null;
  /** BM25 over the chunk texts, by the same labels (set by open). */
  private lexical!: LexicalIndex;
  /** Unit vectors of a spread of live chunks (the noise level of a query); null after any change. */
  private sample: Float32Array | null = null;
  /** Committed files by start label, for label → file lookups. */
  private ranges: Array<{ start: number; count: number; fileId: string }> = [];
  private textCache = new Map<string, StoredChunk[]>();
  private textCacheChars = 0;
  private vectorCache = new Map<string, Float32Array>();
  private vectorCacheBytes = 0;
  private snapshotTimer: NodeJS.Timeout | null = null;
  private dirty = false;
  private closed = false;

  private constructor(
    readonly storeId: string,
    readonly folder: string,
    private readonly sealer: Sealer,
    private readonly manifestFile: AtomicJsonFile<Manifest>,
    private manifest: Manifest,
    private readonly snapshotDelayMs: number,
  ) {
    this.rebuildRanges();
  }

  /** Opens (or creates) a store folder and makes index and manifest agree. */
  static async open(storeId: string, folder: string, sealer: Sealer, options: { snapshotDelayMs?: number } = {}): Promise<StoreData> {
    await mkdir(path.join(folder, 'chunks'), { recursive: true, mode: 0o700 });
    const manifestFile = new AtomicJsonFile<Manifest>(path.join(folder, 'manifest.json'));
    const manifest = (await manifestFile.read()) ?? { dimensions: null, next_label: 0, files: {} };
    const data = new StoreData(storeId, folder, sealer, manifestFile, manifest, options.snapshotDelayMs ?? SNAPSHOT_DELAY_MS);
    await data.loadIndex();
    data.lexical = await LexicalIndex.open({ folder, storeId, sealer, ranges: data.ranges, readTexts: async (fileId) => (await data.chunks(fileId)).map((chunk) => chunk.text) });
    if (data.lexical.changed) data.scheduleSnapshot();
    return data;
  }

  /** Committed file ids without loading anything else (used to reconcile records at start-up). */
  static async committedFiles(folder: string): Promise<Set<string>> {
    const manifest = await new AtomicJsonFile<Manifest>(path.join(folder, 'manifest.json')).read();
    return new Set(Object.keys(manifest?.files ?? {}));
  }

  get dimensions(): number | null {
    return this.manifest.dimensions;
  }

  /** Chunks currently searchable. */
  get liveChunks(): number {
    return this.ranges.reduce((sum, range) => sum + range.count, 0);
  }

  usageBytes(fileId: string): number {
    return this.manifest.files[fileId]?.usage_bytes ?? 0;
  }

  hasFile(fileId: string): boolean {
    return Object.hasOwn(this.manifest.files, fileId);
  }

  private rebuildRanges(): void {
    this.sample = null;
    this.ranges = Object.entries(this.manifest.files)
      .map(([fileId, entry]) => ({ fileId, start: entry.start, count: entry.count }))
      .sort((left, right) => left.start - right.start);
  }

  private indexPath(): string {
    return path.join(this.folder, 'index.hnsw');
  }

  private segmentPath(fileId: string, kind: 'text' | 'vec'): string {
    return path.join(this.folder, 'chunks', `${segmentName(fileId)}.${kind}`);
  }

  private aad(fileId: string, kind: 'text' | 'vec'): string {
    return `vector_store:${this.storeId}:${fileId}:${kind}`;
  }

  private async loadIndex(): Promise<void> {
    const dimensions = this.manifest.dimensions;
    if (dimensions === null) return;
    let index: HnswIndex | null = null;
    try {
      await stat(this.indexPath());
      index = await HnswIndex.load(this.indexPath(), dimensions);
    } catch {
      index = null; // no snapshot yet (or a torn one): rebuilt from the sealed vectors below
    }
    const present = new Set(index?.labels() ?? []);
    const missing = this.ranges.filter((range) => range.count > 0 && !present.has(range.start));
    index ??= HnswIndex.create(dimensions, Math.max(1024, this.liveChunks));
    // Labels of files that were removed after the snapshot was taken.
    let deleted = false;
    for (const label of present) {
      if (this.fileAt(label) === undefined && index.markDeleted(label)) deleted = true;
    }
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
    if (vectors.length > 0) {
      await this.addPoints(vectors, labels);
      await this.index.save(this.indexPath());
    } else if (deleted) {
      this.scheduleSnapshot();
    }
  }

  private async addPoints(vectors: number[][], labels: number[]): Promise<void> {
    if (vectors.length >= WORKER_BUILD_THRESHOLD) await this.index!.addInWorker(vectors, labels, path.join(this.folder, 'build'));
    else this.index!.add(vectors, labels);
  }

  private async readVectors(fileId: string, dimensions: number): Promise<number[][]> {
    const sealed = await readFile(this.segmentPath(fileId, 'vec'));
    return decodeVectors(this.sealer.unseal(sealed, this.aad(fileId, 'vec')), dimensions);
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
    const flat = normalizeRows(new Float32Array(plain.buffer.slice(plain.byteOffset, plain.byteOffset + plain.byteLength)), this.manifest.dimensions!);
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
    let low = 0;
    let high = this.ranges.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const range = this.ranges[middle]!;
      if (label < range.start) high = middle - 1;
      else if (label >= range.start + range.count) low = middle + 1;
      else return { fileId: range.fileId, start: range.start };
    }
    return undefined;
  }

  private exclusive<T>(run: () => Promise<T>): Promise<T> {
    const next = this.chain.then(run, run);
    this.chain = next.catch(() => undefined);
    return next;
  }

  /**
   * Stores a file's chunks and vectors and makes them searchable. Resolves once the file is
   * durable (segments fsynced, manifest renamed): from then on a crash cannot lose it.
   */
  commitFile(fileId: string, chunks: readonly StoredChunk[], vectors: readonly (readonly number[])[]): Promise<void> {
    return this.exclusive(async () => {
      if (this.closed) throw new Error('vector store data is closed');
      if (chunks.length !== vectors.length) throw new Error('one vector per chunk expected');
      if (this.hasFile(fileId)) await this.removeNow(fileId);
      const dimensions = vectors[0]?.length ?? this.manifest.dimensions ?? 0;
      if (vectors.length > 0 && this.manifest.dimensions !== null && dimensions !== this.manifest.dimensions) {
        throw new Error(`the embedding model returned ${dimensions} dimensions; this store holds ${this.manifest.dimensions}`);
      }
      await writeFileAtomic(this.segmentPath(fileId, 'text'), this.sealer.seal(Buffer.from(JSON.stringify(chunks), 'utf8'), this.aad(fileId, 'text')));
      if (vectors.length > 0) await writeFileAtomic(this.segmentPath(fileId, 'vec'), this.sealer.seal(encodeVectors(vectors, dimensions), this.aad(fileId, 'vec')));
      const start = this.manifest.next_label;
      if (vectors.length > 0) {
        if (this.manifest.dimensions === null) this.manifest.dimensions = dimensions;
        this.index ??= HnswIndex.create(dimensions);
        await this.addPoints(vectors.map((vector) => [...vector]), vectors.map((_, offset) => start + offset));
      }
      this.manifest.next_label = start + vectors.length;
      this.lexical.addFile(start, chunks.map((chunk) => chunk.text));
      const textBytes = chunks.reduce((sum, chunk) => sum + Buffer.byteLength(chunk.text, 'utf8'), 0);
      this.manifest.files[fileId] = { start, count: vectors.length, usage_bytes: textBytes + vectors.length * dimensions * 4 };
      await this.manifestFile.write(this.manifest);
      this.rebuildRanges();
      this.cacheText(fileId, [...chunks]);
      this.scheduleSnapshot();
    });
  }

  /** Removes a file: its labels are marked deleted, its segments deleted. */
  removeFile(fileId: string): Promise<void> {
    return this.exclusive(() => this.removeNow(fileId));
  }

  private async removeNow(fileId: string): Promise<void> {
    const entry = this.manifest.files[fileId];
    if (entry === undefined) return;
    for (let offset = 0; offset < entry.count; offset += 1) this.index?.markDeleted(entry.start + offset);
    this.lexical.removeLabels(entry.start, entry.count);
    delete this.manifest.files[fileId];
    await this.manifestFile.write(this.manifest);
    this.rebuildRanges();
    this.dropText(fileId);
    this.dropVectors(fileId);
    await rm(this.segmentPath(fileId, 'text'), { force: true });
    await rm(this.segmentPath(fileId, 'vec'), { force: true });
    this.scheduleSnapshot();
  }

  private scheduleSnapshot(): void {
    this.dirty = true;
    if (this.snapshotTimer !== null || this.closed) return;
    this.snapshotTimer = setTimeout(() => {
      this.snapshotTimer = null;
      void this.snapshot().catch(() => undefined);
    }, this.snapshotDelayMs);
    this.snapshotTimer.unref();
  }

  /** Writes the index snapshot if anything changed since the last one. */
  snapshot(): Promise<void> {
    return this.exclusive(async () => {
      if (!this.dirty) return;
      this.dirty = false;
      await this.index?.save(this.indexPath());
      await this.lexical.save();
    });
  }

  /** A file's chunks (decrypted), in order. */
  async chunks(fileId: string): Promise<StoredChunk[]> {
    const cached = this.textCache.get(fileId);
    if (cached !== undefined) {
      // Refresh its place in the LRU order.
      this.textCache.delete(fileId);
      this.textCache.set(fileId, cached);
      return cached;
    }
    if (!this.hasFile(fileId)) return [];
    const sealed = await readFile(this.segmentPath(fileId, 'text'));
    const chunks = JSON.parse(this.sealer.unseal(sealed, this.aad(fileId, 'text')).toString('utf8')) as StoredChunk[];
    this.cacheText(fileId, chunks);
    return chunks;
  }

  private cacheText(fileId: string, chunks: StoredChunk[]): void {
    this.dropText(fileId);
    this.textCache.set(fileId, chunks);
    this.textCacheChars += chunks.reduce((sum, chunk) => sum + chunk.text.length, 0);
    for (const [oldest, oldChunks] of this.textCache) {
      if (this.textCacheChars <= TEXT_CACHE_CHARS || oldest === fileId) break;
      this.textCache.delete(oldest);
      this.textCacheChars -= oldChunks.reduce((sum, chunk) => sum + chunk.text.length, 0);
    }
  }

  private dropText(fileId: string): void {
    const chunks = this.textCache.get(fileId);
    if (chunks === undefined) return;
    this.textCache.delete(fileId);
    this.textCacheChars -= chunks.reduce((sum, chunk) => sum + chunk.text.length, 0);
  }

  /**
   * Best chunks for a query vector. With `acceptFile`, only those files' chunks count: when few
   * chunks pass, every one of them is scored exactly (an ANN walk that rejects most nodes would
   * return too few or miss the best); otherwise hnswlib filters during the walk.
   */
  async search(query: readonly number[], k: number, acceptFile?: (fileId: string) => boolean): Promise<ChunkHit[]> {
    if (this.index === null || this.manifest.dimensions === null || k <= 0) return [];
    if (query.length !== this.manifest.dimensions) {
      throw new Error(`the query embedding has ${query.length} dimensions; this store holds ${this.manifest.dimensions}`);
    }
    let neighbors: Neighbor[];
    if (acceptFile === undefined) {
      neighbors = this.index.search(query, k);
    } else {
      const accepted = this.ranges.filter((range) => range.count > 0 && acceptFile(range.fileId));
      const acceptedChunks = accepted.reduce((sum, range) => sum + range.count, 0);
      if (acceptedChunks === 0) return [];
      if (acceptedChunks <= EXACT_SEARCH_LIMIT) {
        neighbors = await this.exactSearch(query, k, accepted);
      } else {
        const acceptedIds = new Set(accepted.map((range) => range.fileId));
        neighbors = this.index.search(query, k, (label) => {
          const file = this.fileAt(label);
          return file !== undefined && acceptedIds.has(file.fileId);
        });
      }
    }
    const hits: ChunkHit[] = [];
    for (const neighbor of neighbors) {
      const file = this.fileAt(neighbor.label);
      if (file === undefined) continue;
      const chunks = await this.chunks(file.fileId);
      const chunkIndex = neighbor.label - file.start;
      hits.push({ fileId: file.fileId, chunkIndex, score: neighbor.score, text: chunks[chunkIndex]?.text ?? '' });
    }
    return hits;
  }

  /** Normalised BM25 (in [0, 1)) of every chunk sharing a term with the query, by label. */
  lexicalScores(query: string): Map<number, number> {
    return this.lexical.score(query);
  }

  /** The chunk a label stands for (undefined once its file is removed). */
  chunkAt(label: number): { fileId: string; chunkIndex: number } | undefined {
    const file = this.fileAt(label);
    return file === undefined ? undefined : { fileId: file.fileId, chunkIndex: label - file.start };
  }

  labelOf(fileId: string, chunkIndex: number): number | undefined {
    const entry = this.manifest.files[fileId];
    return entry === undefined || chunkIndex < 0 || chunkIndex >= entry.count ? undefined : entry.start + chunkIndex;
  }

  /** Cosine of a unit-length query to a live chunk's vector (read back from the HNSW index). */
  cosineAt(unitQuery: Float32Array, label: number): number {
    if (this.index === null) return 0;
    return dotUnit(unitQuery, this.index.vector(label));
  }

  /**
   * Mean cosine of a unit-length query to a spread of up to 64 live chunks: where chunks
   * unrelated to the query score with this store's embedding model (the sample is taken evenly
   * over the labels and kept until the store changes).
   */
  noiseLevel(unitQuery: Float32Array): number {
    if (this.index === null) return 0;
    if (this.sample === null) {
      const live = this.liveChunks;
      const count = Math.min(64, live);
      const dimensions = this.manifest.dimensions ?? 0;
      const sample = new Float32Array(count * dimensions);
      let rangeIndex = 0;
      let before = 0;
      for (let row = 0; row < count; row += 1) {
        const position = Math.floor(((row + 0.5) * live) / count);
        while (before + this.ranges[rangeIndex]!.count <= position) before += this.ranges[rangeIndex++]!.count;
        sample.set(normalize(this.index.vector(this.ranges[rangeIndex]!.start + position - before)), row * dimensions);
      }
      this.sample = sample;
    }
    const dimensions = unitQuery.length;
    const rows = this.sample.length / dimensions;
    if (rows === 0) return 0;
    let sum = 0;
    for (let row = 0; row < rows; row += 1) sum += dotUnit(unitQuery, this.sample.subarray(row * dimensions, (row + 1) * dimensions));
    return sum / rows;
  }

  /** The text of a live chunk. */
  async chunkText(fileId: string, chunkIndex: number): Promise<string> {
    return (await this.chunks(fileId))[chunkIndex]?.text ?? '';
  }

  /** Scores every chunk of the given files (their vectors decrypted once, then cached). */
  private async exactSearch(query: readonly number[], k: number, ranges: ReadonlyArray<{ start: number; count: number; fileId: string }>): Promise<Neighbor[]> {
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
  }
}
