/**
 * The o200k_base byte-pair ranks as one compact table: every token's bytes back to back in one
 * byte array, a start offset per rank, and an open-addressing hash (a typed array) from bytes to
 * rank. js-tiktoken keeps the same 200k ranks as two Maps of string keys and small Uint8Arrays,
 * ~150 MB resident; this table is ~5 MB (issue 18 item 3: peak RSS ≤ 130 MB). The ranks come
 * from js-tiktoken's own rank file, so the data is the same one the counts were defined with.
 */

/** Bytes of every token, rank after rank. */
export interface RankTable {
  bytes: Uint8Array;
  /** `starts[rank]`..`starts[rank + 1]` are the rank's bytes; equal = no such rank. */
  starts: Uint32Array;
  /** Open addressing: slot → rank + 1 (0 = empty). Capacity is a power of two. */
  slots: Int32Array;
  /** Special tokens (never produced by encoding user text, decoded to their spelling). */
  special: Map<number, Uint8Array>;
}

/** js-tiktoken's rank file: lines of `! <first rank> <base64 token> <base64 token> …`. */
export interface RankFile {
  pat_str: string;
  special_tokens: Record<string, number>;
  bpe_ranks: string;
}

const BASE64 = new Int8Array(128).fill(-1);
for (const [index, char] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].entries()) BASE64[char.charCodeAt(0)] = index;

/** FNV-1a over bytes[from, to): cheap, and spreads the short keys of a BPE vocabulary well. */
export function hashBytes(bytes: Uint8Array, from: number, to: number): number {
  let hash = 0x811c9dc5;
  for (let i = from; i < to; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193);
  return hash >>> 0;
}

/** The rank of bytes[from, to), or -1 when those bytes are not one token. */
export function rankOf(table: RankTable, bytes: Uint8Array, from: number, to: number): number {
  const mask = table.slots.length - 1;
  const length = to - from;
  for (let slot = hashBytes(bytes, from, to) & mask; ; slot = (slot + 1) & mask) {
    const entry = table.slots[slot]!;
    if (entry === 0) return -1;
    const rank = entry - 1;
    const start = table.starts[rank]!;
    if (table.starts[rank + 1]! - start !== length) continue;
    let same = true;
    for (let i = 0; i < length; i++) {
      if (table.bytes[start + i] !== bytes[from + i]) {
        same = false;
        break;
      }
    }
    if (same) return rank;
  }
}

/**
 * Builds the table in steps so that `igw serve` can warm it between event-loop turns: `step`
 * does about `budgetMs` of work and says whether the table is complete; `table` finishes
 * whatever is left synchronously (a request that needs tokens before the warm-up is done).
 * The rank text is scanned in place (no split into 200k strings): the garbage of a build would
 * otherwise raise the resident size by tens of MB that V8 keeps after collecting it.
 */
export class RankTableBuilder {
  private readonly text: string;
  private at = 0;
  /** Rank of the next token on the current line. */
  private nextRank = 0;
  private count = 0;
  private entryRanks = new Uint32Array(1 << 18);
  /** Token i's bytes are bytes[entryEnds[i - 1], entryEnds[i]). */
  private entryEnds = new Uint32Array(1 << 18);
  private bytes = new Uint8Array(1 << 21);
  private used = 0;
  private built: RankTable | undefined;

  constructor(private readonly file: RankFile) {
    this.text = file.bpe_ranks;
  }

  step(budgetMs: number): boolean {
    if (this.built !== undefined) return true;
    const until = performance.now() + budgetMs;
    for (let fields = 1; this.at < this.text.length; fields++) {
      this.readField();
      if ((fields & 1023) === 0 && performance.now() > until) return false;
    }
    this.built = this.assemble();
    return true;
  }

  table(): RankTable {
    while (!this.step(Infinity));
    return this.built!;
  }

  /** One space- or newline-separated field: `!` opens a line, the number after it is its first rank, then tokens. */
  private readField(): void {
    const text = this.text;
    let end = this.at;
    while (end < text.length && text.charCodeAt(end) !== 32 && text.charCodeAt(end) !== 10) end++;
    const from = this.at;
    this.at = end + 1;
    if (end === from) return;
    if (end - from === 1 && text.charCodeAt(from) === 33) {
      this.nextRank = -1;
      return;
    }
    if (this.nextRank === -1) {
      this.nextRank = Number.parseInt(text.slice(from, end), 10);
      return;
    }
    this.decodeBase64(from, end);
    if (this.count === this.entryRanks.length) {
      this.entryRanks = grow(this.entryRanks);
      this.entryEnds = grow(this.entryEnds);
    }
    this.entryRanks[this.count] = this.nextRank++;
    this.entryEnds[this.count] = this.used;
    this.count += 1;
  }

  private decodeBase64(from: number, to: number): void {
    if (this.used + (to - from) > this.bytes.length) this.bytes = grow(this.bytes);
    let bits = 0;
    let count = 0;
    for (let i = from; i < to; i++) {
      const value = BASE64[this.text.charCodeAt(i)] ?? -1;
      if (value < 0) continue; // '=' padding
      bits = ((bits << 6) | value) & 0xffffff;
      count += 6;
      if (count >= 8) {
        count -= 8;
        this.bytes[this.used++] = (bits >> count) & 0xff;
      }
    }
  }

  private assemble(): RankTable {
    let maxRank = 0;
    for (let i = 0; i < this.count; i++) maxRank = Math.max(maxRank, this.entryRanks[i]!);
    // `starts[rank + 1]` ends each rank (a missing rank is an empty span), so the bytes are laid
    // out in rank order: the rank file lists them in that order already, this only places them.
    const lengths = new Uint32Array(maxRank + 1);
    const sources = new Uint32Array(maxRank + 1);
    for (let i = 0; i < this.count; i++) {
      const rank = this.entryRanks[i]!;
      sources[rank] = i === 0 ? 0 : this.entryEnds[i - 1]!;
      lengths[rank] = this.entryEnds[i]! - sources[rank]!;
    }
    const bytes = new Uint8Array(this.used);
    const starts = new Uint32Array(maxRank + 2);
    let at = 0;
    for (let rank = 0; rank <= maxRank; rank++) {
      starts[rank] = at;
      bytes.set(this.bytes.subarray(sources[rank]!, sources[rank]! + lengths[rank]!), at);
      at += lengths[rank]!;
    }
    starts[maxRank + 1] = at;
    let capacity = 1;
    while (capacity < this.count * 2) capacity <<= 1;
    const slots = new Int32Array(capacity);
    const mask = capacity - 1;
    for (let rank = 0; rank <= maxRank; rank++) {
      if (lengths[rank] === 0) continue;
      let slot = hashBytes(bytes, starts[rank]!, starts[rank + 1]!) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = rank + 1;
    }
    const special = new Map<number, Uint8Array>();
    const encoder = new TextEncoder();
    for (const [spelling, rank] of Object.entries(this.file.special_tokens)) special.set(rank, encoder.encode(spelling));
    this.bytes = new Uint8Array(0);
    this.entryRanks = new Uint32Array(0);
    this.entryEnds = new Uint32Array(0);
    return { bytes, starts, slots, special };
  }
}

function grow<T extends Uint8Array | Uint32Array>(array: T): T {
  const grown = new (array.constructor as new (length: number) => T)(array.length * 2);
  grown.set(array);
  return grown;
}
