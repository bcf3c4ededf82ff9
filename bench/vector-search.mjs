// npm run bench (part 2): the vector store index at 100,000 chunks × 384 dimensions.
// Build, save and load time, search p50/p99 without a filter, with a broad filter (ANN walk
// that skips rejected files) and a selective one (answered exactly), recall@10 against exact
// search, RSS; then ingestion throughput through a real gateway on local-embed.
// BENCH_VS_CHUNKS, BENCH_VS_QUERIES and BENCH_VS_INGEST_DOCS scale it down for a quick look.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = (module) => import(path.join(root, 'dist', module));
const { StoreData } = await dist('vector-stores/store-data.js');
const { keySealer } = await dist('vector-stores/sealer.js');
const { HNSW_PARAMS } = await dist('vector-stores/hnsw-index.js');

const CHUNKS = Number(process.env.BENCH_VS_CHUNKS ?? 100_000);
const DIMENSIONS = 384;
const FILES = 100;
const QUERIES = Number(process.env.BENCH_VS_QUERIES ?? 200);
const K = 10;
const CLUSTERS = 1000;

// Seeded, so every run indexes the same corpus.
let seed = 42;
function random() {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
}
function gaussian() {
  return Math.sqrt(-2 * Math.log(random() || 1e-12)) * Math.cos(2 * Math.PI * random());
}
function unit(vector) {
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm);
  return vector.map((value) => value / norm);
}

// Embeddings of real text cluster by topic: points scattered around topic centres, not uniform noise.
const centres = Array.from({ length: CLUSTERS }, () => unit(Array.from({ length: DIMENSIONS }, gaussian)));
function pointNear(centre, spread) {
  return unit(centre.map((value) => value + gaussian() * spread));
}
const SPREAD = 0.06;

const perFile = Math.ceil(CHUNKS / FILES);
const vectors = [];
for (let index = 0; index < CHUNKS; index += 1) vectors.push(pointNear(centres[Math.floor(random() * CLUSTERS)], SPREAD));
const queries = Array.from({ length: QUERIES }, () => pointNear(centres[Math.floor(random() * CLUSTERS)], SPREAD));
const fileOf = (index) => `file-${Math.floor(index / perFile)}`;

function percentile(values, fraction) {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
}

/** Exact top-k over a flat Float32Array (the ground truth for recall). */
const flat = new Float32Array(CHUNKS * DIMENSIONS);
vectors.forEach((vector, row) => flat.set(vector, row * DIMENSIONS));
function exactTopK(query, accept) {
  const scores = [];
  for (let row = 0; row < CHUNKS; row += 1) {
    if (accept !== undefined && !accept(fileOf(row))) continue;
    let dot = 0;
    const offset = row * DIMENSIONS;
    for (let column = 0; column < DIMENSIONS; column += 1) dot += query[column] * flat[offset + column];
    scores.push([row, dot]);
  }
  scores.sort((left, right) => right[1] - left[1]);
  return scores.slice(0, K).map(([row]) => `${fileOf(row)}#${row % perFile}`);
}

const folder = await mkdtemp(path.join(tmpdir(), 'igw-bench-vs-'));
const sealer = keySealer(randomBytes(32));
const results = {};
try {
  // Build: 100 files committed one after another, as ingestion does (each sealed, manifest, index).
  let data = await StoreData.open('bench', folder, sealer, { snapshotDelayMs: 3_600_000 });
  let started = performance.now();
  for (let file = 0; file < FILES; file += 1) {
    const rows = vectors.slice(file * perFile, (file + 1) * perFile);
    if (rows.length === 0) break;
    await data.commitFile(`file-${file}`, rows.map((_, index) => ({ text: `chunk ${index} of file ${file}`, tokens: 6 })), rows);
  }
  results.build_s = (performance.now() - started) / 1000;
  started = performance.now();
  await data.close();
  results.save_s = (performance.now() - started) / 1000;

  started = performance.now();
  data = await StoreData.open('bench', folder, sealer);
  results.load_s = (performance.now() - started) / 1000;

  async function measure(accept) {
    const latencies = [];
    let found = 0;
    for (const query of queries) {
      const begin = performance.now();
      const hits = await data.search(query, K, accept);
      latencies.push(performance.now() - begin);
      const truth = new Set(exactTopK(query, accept));
      for (const hit of hits) if (truth.has(`${hit.fileId}#${hit.chunkIndex}`)) found += 1;
    }
    return { p50_ms: percentile(latencies, 0.5), p99_ms: percentile(latencies, 0.99), recall_at_10: found / (QUERIES * K) };
  }
  // Warm the text cache and the code paths before timing.
  for (const query of queries.slice(0, 10)) await data.search(query, K);
  results.no_filter = await measure(undefined);
  const half = (fileId) => Number(fileId.slice(5)) % 2 === 0;
  results.filter_half = await measure(half);
  const onePercent = (fileId) => fileId === 'file-7';
  results.filter_1pct = await measure(onePercent);
  results.rss_mb = process.memoryUsage().rss / (1024 * 1024);
  await data.close();
} finally {
  await rm(folder, { recursive: true, force: true });
}

// Ingestion through a real gateway: text sources → chunk → local-embed → index, until idle.
const ingest = await (async () => {
  const { startGateway } = await dist('app/gateway.js');
  const { buildConfig } = await dist('config/load.js');
  const { createKey } = await dist('admin/keys-admin.js');
  const { silentLogger } = await dist('util/logger.js');
  const dataDir = await mkdtemp(path.join(tmpdir(), 'igw-bench-ingest-'));
  const config = buildConfig({}, null, {});
  const gateway = await startGateway({ dataDir, config, port: 0, host: '127.0.0.1', logger: silentLogger });
  try {
    const { key } = await createKey(gateway.app.store, config, { name: 'bench', vault: true });
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const store = await (await fetch(`${gateway.url}/v1/vector_stores`, { method: 'POST', headers, body: JSON.stringify({ name: 'bench' }) })).json();
    const vocabulary = Array.from({ length: 4000 }, (_, index) => `word${index.toString(36)}`);
    const documents = Number(process.env.BENCH_VS_INGEST_DOCS ?? 40);
    let bytes = 0;
    const begin = performance.now();
    for (let document = 0; document < documents; document += 1) {
      const paragraphs = Array.from({ length: 40 }, () => `${Array.from({ length: 80 }, () => vocabulary[Math.floor(random() * random() * vocabulary.length)]).join(' ')}.`);
      const text = paragraphs.join('\n\n');
      bytes += Buffer.byteLength(text);
      await fetch(`${gateway.url}/v1/vector_stores/${store.id}/sources/text`, { method: 'POST', headers, body: JSON.stringify({ name: `doc-${document}.txt`, text }) }).then((response) => response.arrayBuffer());
    }
    await gateway.app.vectorStores.idle();
    const seconds = (performance.now() - begin) / 1000;
    const final = await (await fetch(`${gateway.url}/v1/vector_stores/${store.id}`, { headers })).json();
    const data = await gateway.app.vectorStores.data(store.id);
    return { documents, completed: final.file_counts.completed, chunks: data.liveChunks, mb: bytes / 1e6, seconds, chunks_per_s: data.liveChunks / seconds, mb_per_s: bytes / 1e6 / seconds };
  } finally {
    await gateway.close();
    await rm(dataDir, { recursive: true, force: true });
  }
})();

const row = (name, cell) => `| ${name} | ${cell.p50_ms.toFixed(2)} | ${cell.p99_ms.toFixed(2)} | ${cell.recall_at_10.toFixed(3)} |`;
console.log(`\nVector search: ${CHUNKS.toLocaleString('en')} chunks × ${DIMENSIONS} dims in ${FILES} files, HNSW M=${HNSW_PARAMS.m} efConstruction=${HNSW_PARAMS.efConstruction} ef=${HNSW_PARAMS.efSearch}, ${QUERIES} queries, k=${K}\n`);
console.log('| search | p50 ms | p99 ms | recall@10 |');
console.log('|---|---:|---:|---:|');
console.log(row('no filter', results.no_filter));
console.log(row('filter passing 50% of files (ANN, filtered walk)', results.filter_half));
console.log(row('filter passing 1% of files (exact)', results.filter_1pct));
console.log(`\nbuild ${results.build_s.toFixed(1)} s (${FILES} sealed commits), save ${results.save_s.toFixed(2)} s, load ${results.load_s.toFixed(2)} s, RSS ${results.rss_mb.toFixed(0)} MB`);
console.log(
  `ingest (local-embed, sources/text): ${ingest.completed}/${ingest.documents} documents, ${ingest.chunks} chunks, ${ingest.mb.toFixed(2)} MB in ${ingest.seconds.toFixed(1)} s → ${ingest.chunks_per_s.toFixed(0)} chunks/s, ${ingest.mb_per_s.toFixed(2)} MB/s`,
);
