/** A committed file's labels: start, start + 1, … start + count − 1 are its chunks, in order. */
export interface LabelRange {
  fileId: string;
  start: number;
  count: number;
}

/**
 * A store's committed files by label range, as flat typed arrays: label → file slot is a binary
 * search over one Int32Array of range starts. The same search over an array of range objects read
 * a scattered object at each of its ~17 steps: on the 100,000-file store (one chunk per file) each
 * hit of a search missed the cache there, ~10% of the event loop per search (issue 16).
 *
 * Slot i is the i-th committed file by start label (appended at commit, removed at removal): the
 * store's one record of its ranges (StoreData keeps no other copy). Each slot also carries one search-side memo (`tag`),
 * stamped with the version it was resolved at, which moves with its slot: search.ts keeps a file's
 * record there so a search resolves it once per file, not by two string-keyed Map lookups per hit.
 * And one filter result per slot (`passed`), stamped with the search that computed it and kept
 * with the attributes object it was computed on (accepted-files.ts).
 */
export class LabelTable {
  private starts: Int32Array;
  private counts: Int32Array;
  private readonly fileIds: string[] = [];
  private readonly tags: unknown[] = [];
  private stamps: Float64Array;
  private readonly filterInputs: unknown[] = [];
  private filterStamps: Float64Array;
  private filterResults: Uint8Array;
  private size = 0;

  /** `ranges` sorted by start (labels only grow: a store's commits append in that order). */
  constructor(ranges: readonly LabelRange[] = []) {
    const capacity = Math.max(16, ranges.length);
    this.starts = new Int32Array(capacity);
    this.counts = new Int32Array(capacity);
    this.stamps = new Float64Array(capacity);
    this.filterStamps = new Float64Array(capacity);
    this.filterResults = new Uint8Array(capacity);
    for (const range of ranges) this.append(range.start, range.count, range.fileId);
  }

  get length(): number {
    return this.size;
  }

  /** A new last range (labels only grow: its start is at or past every other's end). */
  append(start: number, count: number, fileId: string): void {
    if (this.size === this.starts.length) this.grow();
    const slot = this.size++;
    this.starts[slot] = start;
    this.counts[slot] = count;
    this.stamps[slot] = 0;
    this.filterStamps[slot] = 0;
    this.fileIds.push(fileId);
    this.tags.push(undefined);
    this.filterInputs.push(undefined);
  }

  /** Removes a slot; those after it move down one, with their memos. */
  removeAt(slot: number): void {
    if (slot < 0 || slot >= this.size) return;
    this.starts.copyWithin(slot, slot + 1, this.size);
    this.counts.copyWithin(slot, slot + 1, this.size);
    this.stamps.copyWithin(slot, slot + 1, this.size);
    this.filterStamps.copyWithin(slot, slot + 1, this.size);
    this.filterResults.copyWithin(slot, slot + 1, this.size);
    this.fileIds.splice(slot, 1);
    this.tags.splice(slot, 1);
    this.filterInputs.splice(slot, 1);
    this.size -= 1;
  }

  /** The slot whose range holds the label; -1 when none does (its file was removed, or never committed). */
  slotOf(label: number): number {
    const starts = this.starts;
    // The last slot starting at or before the label (a file without chunks starts where the next does: the later one holds it).
    let low = 0;
    let high = this.size - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (starts[middle]! <= label) {
        found = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    return found !== -1 && label < starts[found]! + this.counts[found]! ? found : -1;
  }

  /**
   * The slot of `fileId`'s range, which starts at `start`; -1 when there is none. A range of no
   * chunks shares its start with the next file's range, so the match is by file id among the
   * ranges of that start, never the first slot found there.
   */
  slotOfFile(start: number, fileId: string): number {
    const starts = this.starts;
    let low = 0;
    let high = this.size;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (starts[middle]! < start) low = middle + 1;
      else high = middle;
    }
    for (let slot = low; slot < this.size && starts[slot] === start; slot += 1) if (this.fileIds[slot] === fileId) return slot;
    return -1;
  }

  /** The ranges as objects, in slot order: a copy, for the passes over the whole store at open (a search reads the arrays). */
  ranges(): LabelRange[] {
    return Array.from({ length: this.size }, (_, slot) => ({ fileId: this.fileIds[slot]!, start: this.starts[slot]!, count: this.counts[slot]! }));
  }

  /** The file ids in slot order (a copy). */
  fileIdList(): string[] {
    return this.fileIds.slice(0, this.size);
  }

  fileId(slot: number): string {
    return this.fileIds[slot]!;
  }

  start(slot: number): number {
    return this.starts[slot]!;
  }

  count(slot: number): number {
    return this.counts[slot]!;
  }

  /** Whether the slot's memo was set at this version (versions are never reused). */
  tagged(slot: number, version: number): boolean {
    return this.stamps[slot] === version;
  }

  tag(slot: number): unknown {
    return this.tags[slot];
  }

  setTag(slot: number, version: number, value: unknown): void {
    this.stamps[slot] = version;
    this.tags[slot] = value;
  }

  /** The filter result stamped `stamp` and computed on `input`; undefined when there is none. */
  passed(slot: number, stamp: number, input: unknown): boolean | undefined {
    return this.filterStamps[slot] === stamp && this.filterInputs[slot] === input ? this.filterResults[slot] === 1 : undefined;
  }

  setPassed(slot: number, stamp: number, input: unknown, passes: boolean): void {
    this.filterStamps[slot] = stamp;
    this.filterInputs[slot] = input;
    this.filterResults[slot] = passes ? 1 : 0;
  }

  private grow(): void {
    const capacity = this.starts.length * 2;
    const starts = new Int32Array(capacity);
    starts.set(this.starts);
    const counts = new Int32Array(capacity);
    counts.set(this.counts);
    const stamps = new Float64Array(capacity);
    stamps.set(this.stamps);
    const filterStamps = new Float64Array(capacity);
    filterStamps.set(this.filterStamps);
    const filterResults = new Uint8Array(capacity);
    filterResults.set(this.filterResults);
    this.starts = starts;
    this.counts = counts;
    this.stamps = stamps;
    this.filterStamps = filterStamps;
    this.filterResults = filterResults;
  }
}
