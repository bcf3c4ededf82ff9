import { buildInWorker, HnswIndex } from './dist/vector-stores/hnsw-index.js';
const N = 100000, D = 384, CLUSTERS = 1000, SPREAD = 0.06, Q = 200, K = 10;
let seed = 42;
const random = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
const gaussian = () => Math.sqrt(-2 * Math.log(random() || 1e-12)) * Math.cos(2 * Math.PI * random());
const unit = (v) => { let n = 0; for (const x of v) n += x * x; n = Math.sqrt(n); return v.map((x) => x / n); };
const centres = Array.from({ length: CLUSTERS }, () => unit(Array.from({ length: D }, gaussian)));
const near = (c) => unit(c.map((x) => x + gaussian() * SPREAD));
const vectors = []; for (let i = 0; i < N; i++) vectors.push(near(centres[Math.floor(random() * CLUSTERS)]));
const queries = Array.from({ length: Q }, () => near(centres[Math.floor(random() * CLUSTERS)]));
const flat = new Float32Array(N * D); vectors.forEach((v, r) => flat.set(v, r * D));
const truth = queries.map((q) => { const s = []; for (let r = 0; r < N; r++) { let d = 0; const o = r * D; for (let c = 0; c < D; c++) d += q[c] * flat[o + c]; s.push([r, d]); } s.sort((a, b) => b[1] - a[1]); return new Set(s.slice(0, K).map(([r]) => r)); });
const M = Number(process.env.M ?? 16);
let t = performance.now();
const path = `/tmp/tune-${M}.hnsw`;
const fs = await import('node:fs');
if (!fs.existsSync(path)) {
  // buildInWorker uses HNSW_PARAMS; override via env not supported: use direct worker with params
  await buildInWorker({ basePath: null, outPath: path, dimensions: D, capacity: N, vectors, labels: vectors.map((_, i) => i) });
  console.log('build s', ((performance.now() - t) / 1000).toFixed(1));
}
const index = await HnswIndex.load(path, D);
for (const ef of [128, 192, 256, 384, 512]) {
  const lat = []; let found = 0;
  for (let i = 0; i < Q; i++) {
    const b = performance.now();
    // emulate setEf through search k with big ef: HnswIndex.search sets ef = max(efSearch, 2k); use private native
    index.native.setEf(ef);
    const r = index.native.searchKnn(queries[i], K);
    lat.push(performance.now() - b);
    for (const l of r.neighbors) if (truth[i].has(l)) found++;
  }
  lat.sort((a, b) => a - b);
  console.log(`M=${M} ef=${ef} recall=${(found / (Q * K)).toFixed(3)} p50=${lat[Q / 2].toFixed(2)} p99=${lat[Math.floor(Q * 0.99)].toFixed(2)}`);
}
