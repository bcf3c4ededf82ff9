/**
 * A compact in-memory copy of a store's vectors by label, for the cosines a hybrid search needs
 * beside the ANN walk (the BM25 candidates' cosine, the query's noise level). Reading a point back
 * from hnswlib costs 0.05–0.1 ms (a JS array built element by element across N-API); a dot product
 * here costs about a microsecond at 384 dimensions.
 *
 * Each vector is stored at unit length as int8 with one scale per row (its largest component
 * maps to ±127): 1 byte per dimension, 38 MB at 100,000 × 384, a quarter of a Float32 copy. Each
 * component is off by at most scale/2 with random sign, so a cosine moves by ~5e-4 for embedding-
 * like vectors (the tests bound it by 2e-3), far below what separates hits in a fused score; a
 * vector dominated by one huge component would lose more (its small ones round to few levels).
 */
export class VectorCopy {
  private codes = new Int8Array(0);
  /** Per label: the factor that turns codes back into the unit vector; 0 = not held. */
  private scales = new Float32Array(0);

  constructor(readonly dimensions: number) {}

  has(label: number): boolean {
    return label < this.scales.length && this.scales[label]! !== 0;
  }

  /** Stores a vector (any length; it is scaled to unit length first). A zero vector is not held. */
  set(label: number, vector: ArrayLike<number>): void {
    const dimensions = this.dimensions;
    let norm = 0;
    let largest = 0;
    for (let column = 0; column < dimensions; column += 1) {
      const value = vector[column]!;
      norm += value * value;
      largest = Math.max(largest, Math.abs(value));
    }
    if (norm === 0 || !Number.isFinite(norm)) return;
    this.reserve(label);
    norm = Math.sqrt(norm);
    const scale = largest / norm / 127;
    const offset = label * dimensions;
    for (let column = 0; column < dimensions; column += 1) this.codes[offset + column] = Math.round(vector[column]! / norm / scale);
    this.scales[label] = scale;
  }

  delete(label: number): void {
    if (label < this.scales.length) this.scales[label] = 0;
  }

  /**
   * Cosine of a unit-length query with a held vector (undefined when not held). With `columns`
   * (the query's nonzero columns, ascending: nonzeroColumns), only those are summed: the same
   * products in the same order, the skipped ones being exact zeros, so the same bits.
   */
  cosine(unitQuery: Float32Array, label: number, columns?: Int32Array | null): number | undefined {
    const scale = label < this.scales.length ? this.scales[label]! : 0;
    if (scale === 0) return undefined;
    const codes = this.codes;
    const offset = label * this.dimensions;
    let dot = 0;
    if (columns) {
      for (let at = 0; at < columns.length; at += 1) {
        const column = columns[at]!;
        dot += unitQuery[column]! * codes[offset + column]!;
      }
    } else {
      for (let column = 0; column < unitQuery.length; column += 1) dot += unitQuery[column]! * codes[offset + column]!;
    }
    return dot * scale;
  }

  /** Adds the held unit vector, times `weight`, into `sum` (for mean vectors); false when not held. */
  addTo(sum: Float32Array, label: number, weight: number): boolean {
    const scale = label < this.scales.length ? this.scales[label]! : 0;
    if (scale === 0) return false;
    const offset = label * this.dimensions;
    for (let column = 0; column < sum.length; column += 1) sum[column]! += this.codes[offset + column]! * scale * weight;
    return true;
  }

  /** Bytes held (for RSS accounting in benches). */
  get byteLength(): number {
    return this.codes.byteLength + this.scales.byteLength;
  }

  private reserve(label: number): void {
    if (label < this.scales.length) return;
    const capacity = Math.max(1024, label + 1, Math.ceil(this.scales.length * 1.5));
    const codes = new Int8Array(capacity * this.dimensions);
    codes.set(this.codes);
    const scales = new Float32Array(capacity);
    scales.set(this.scales);
    this.codes = codes;
    this.scales = scales;
  }
}

/**
 * The nonzero columns of a query vector, ascending, when they are under half of them; else null
 * (a dense query: the plain loop is cheaper). local-embed's vectors are hashed word and fragment
 * features, so a three-word query has a few dozen of 384: a search's ~60 lexical candidates
 * then cost that many products each instead of 384 (issue 16). A zero column adds an exact zero
 * to the sum (a finite float times an int8; the sum starts at +0, and +0 + −0 is +0), so skipping
 * it leaves every bit of the cosine as it was.
 */
export function nonzeroColumns(vector: Float32Array): Int32Array | null {
  let count = 0;
  for (let column = 0; column < vector.length; column += 1) if (vector[column] !== 0) count += 1;
  if (count * 2 >= vector.length) return null;
  const columns = new Int32Array(count);
  let at = 0;
  for (let column = 0; column < vector.length; column += 1) if (vector[column] !== 0) columns[at++] = column;
  return columns;
}
