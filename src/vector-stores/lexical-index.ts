import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Bm25Index, type LexicalScores } from './bm25-index.js';
import type { LabelRange } from './label-table.js';
import { lexicalTerms } from './lexical-terms.js';
import type { Sealer } from './sealer.js';
import { writePartsAtomic } from './snapshot-file.js';

export interface LexicalIndexOptions {
  folder: string;
  storeId: string;
  sealer: Sealer;
  /** The store's committed files: the truth the saved index is reconciled with. */
  ranges: readonly LabelRange[];
  /** A committed file's chunk texts, in label order (to index files the saved image lacks). */
  readTexts(fileId: string): Promise<readonly string[]>;
}

/**
 * A store's lexical (BM25) index beside its HNSW index (DESIGN §4): sealed at rest under the data
 * key like the chunks (`lexical.idx`), updated in memory as files are committed and removed,
 * saved with the store's index snapshots. Like the HNSW snapshot it may lag the manifest: on open
 * it is reconciled (files it lacks are indexed from their chunks, removed files dropped), and a
 * missing, torn or foreign image is rebuilt from the chunks.
 */
export class LexicalIndex {
  private dirty = false;

  private constructor(
    private readonly index: Bm25Index,
    private readonly filePath: string,
    private readonly sealer: Sealer,
    private readonly aad: string,
  ) {}

  static async open(options: LexicalIndexOptions): Promise<LexicalIndex> {
    const filePath = path.join(options.folder, 'lexical.idx');
    const aad = `vector_store:${options.storeId}:lexical`;
    let index: Bm25Index;
    let rebuilt = false;
    try {
      index = Bm25Index.decode(options.sealer.unseal(await readFile(filePath), aad));
    } catch {
      index = new Bm25Index(); // none yet, torn, or not ours: rebuilt from the chunks below
      rebuilt = true;
    }
    const lexical = new LexicalIndex(index, filePath, options.sealer, aad);
    const live = new Set<number>();
    for (const range of options.ranges) for (let offset = 0; offset < range.count; offset += 1) live.add(range.start + offset);
    for (const label of index.labels()) {
      if (!live.has(label)) {
        index.remove(label);
        lexical.dirty = true;
      }
    }
    for (const range of options.ranges) {
      if (range.count === 0 || index.has(range.start)) continue;
      lexical.addFile(range.start, await options.readTexts(range.fileId));
    }
    if (rebuilt && options.ranges.length > 0) lexical.dirty = true;
    return lexical;
  }

  /** Whether the in-memory index differs from the saved image. */
  get changed(): boolean {
    return this.dirty;
  }

  /** Indexes a committed file's chunks under labels start, start + 1, … */
  addFile(start: number, texts: readonly string[]): void {
    texts.forEach((text, offset) => this.index.add(start + offset, lexicalTerms(text)));
    this.dirty = true;
  }

  removeLabels(start: number, count: number): void {
    for (let offset = 0; offset < count; offset += 1) this.index.remove(start + offset);
    this.dirty = true;
  }

  /** Normalised BM25 of every chunk sharing a term with the query, by label (see Bm25Index.score). */
  score(query: string, bestKept?: number): LexicalScores {
    return this.index.score(lexicalTerms(query), bestKept);
  }

  /** Writes the sealed image if anything changed since the last save. */
  async save(): Promise<void> {
    if (!this.dirty) return;
    this.dirty = false;
    try {
      // In slices (encoding and sealing tens of MB at once held searches for a tenth of a second or more);
      // the store's lock keeps the index unchanged until the last part is encoded.
      await writePartsAtomic(this.filePath, await this.sealer.sealInSlices(this.index.encodeParts(), this.aad));
    } catch (error) {
      this.dirty = true;
      throw error;
    }
  }
}
