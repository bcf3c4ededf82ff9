// npm run bench (part 2): the vector store index at 100,000 chunks × 384 dimensions.
// Build, save and load time, search p50/p99 without a filter, with a broad filter (ANN walk
// that skips rejected files) and a selective one (answered exactly), recall@10 against exact
// search, RSS; then ingestion throughput through a real gateway on local-embed.
// BENCH_VS_CHUNKS, BENCH_VS_QUERIES and BENCH_VS_INGEST_DOCS scale it down for a quick look.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { seededRandom } from './process.mjs';

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
/** Topics (1,000 of them, in 25 themes): about 100 chunks each at 100k. */
const CLUSTERS = 1000;

const random = seededRandom(42);
function gaussian() {
  return Math.sqrt(-2 * Math.log(random() || 1e-12)) * Math.cos(2 * Math.PI * random());
}
function unit(vector) {
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm);
  return vector.map((value) => value / norm);
}

// Embeddings of real text are not uniform noise: they share a common direction (anisotropy),
// group into themes, and within a theme into topics; chunks scatter around their topic.
// Centres and queries come first in the seeded sequence, so the search process regenerates them alone.
const THEMES = 25;
const common = unit(Array.from({ length: DIMENSIONS }, gaussian));
const themes = Array.from({ length: THEMES }, () => unit(Array.from({ length: DIMENSIONS }, gaussian)));
const centres = Array.from({ length: CLUSTERS }, (_, index) =>
  unit(themes[index % THEMES].map((value, dimension) => value + 0.5 * common[dimension] + (0.9 * gaussian()) / Math.sqrt(DIMENSIONS))),
);
function pointNear(centre, spread) {
  return unit(centre.map((value) => value + gaussian() * spread));
}
const SPREAD = 0.06;
const queries = Array.from({ length: QUERIES }, () => pointNear(centres[Math.floor(random() * CLUSTERS)], SPREAD));
const perFile = Math.ceil(CHUNKS / FILES);
const fileOf = (index) => `file-${Math.floor(index / perFile)}`;
const FILTERS = {
  no_filter: undefined,
  filter_half: (fileId) => Number(fileId.slice(5)) % 2 === 0,
  filter_1pct: (fileId) => fileId === 'file-7',
};

function percentile(values, fraction) {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
}

// The search side runs in a fresh process (`--search FOLDER`): its load time and RSS are the
// index's, not this script's copy of the corpus.
if (process.argv[2] === '--search') {
  const sealer = keySealer(Buffer.from(process.env.BENCH_VS_KEY, 'hex'));
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  const data = await StoreData.open('bench', process.argv[3], sealer);
  const loadSeconds = (performance.now() - started) / 1000;
  for (const query of queries.slice(0, 10)) await data.search(query, K);
  const cases = {};
  for (const [name, accept] of Object.entries(FILTERS)) {
    const latencies = [];
    const hits = [];
    for (const query of queries) {
      const begin = performance.now();
      const found = await data.search(query, K, accept);
      latencies.push(performance.now() - begin);
      hits.push(found.map((hit) => `${hit.fileId}#${hit.chunkIndex}`));
    }
    cases[name] = { p50_ms: percentile(latencies, 0.5), p99_ms: percentile(latencies, 0.99), hits };
  }
  const rss = process.memoryUsage().rss;
  await data.close();
  process.stdout.write(JSON.stringify({ load_s: loadSeconds, rss_mb: rss / 2 ** 20, baseline_rss_mb: rssBefore / 2 ** 20, cases }));
  process.exit(0);
}

const vectors = [];
for (let index = 0; index < CHUNKS; index += 1) vectors.push(pointNear(centres[Math.floor(random() * CLUSTERS)], SPREAD));

/** Exact top-k per filter over a flat Float32Array (the ground truth for recall): one scan per query. */
const flat = new Float32Array(CHUNKS * DIMENSIONS);
vectors.forEach((vector, row) => flat.set(vector, row * DIMENSIONS));
const fileAccepted = Object.fromEntries(Object.entries(FILTERS).map(([name, accept]) => [name, Array.from({ length: FILES }, (_, file) => accept === undefined || accept(`file-${file}`))]));
function exactTopK(query) {
  const scores = new Float32Array(CHUNKS);
  for (let row = 0; row < CHUNKS; row += 1) {
    let dot = 0;
    const offset = row * DIMENSIONS;
    for (let column = 0; column < DIMENSIONS; column += 1) dot += query[column] * flat[offset + column];
    scores[row] = dot;
  }
  const order = Array.from(scores.keys()).sort((left, right) => scores[right] - scores[left]);
  const truth = {};
  for (const name of Object.keys(FILTERS)) {
    truth[name] = new Set(order.filter((row) => fileAccepted[name][Math.floor(row / perFile)]).slice(0, K).map((row) => `${fileOf(row)}#${row % perFile}`));
  }
  return truth;
}

const folder = await mkdtemp(path.join(tmpdir(), 'igw-bench-vs-'));
const key = randomBytes(32);
const results = {};
try {
  // Build: 100 files committed one after another, as ingestion does (each sealed, manifest, index).
  const data = await StoreData.open('bench', folder, keySealer(key), { snapshotDelayMs: 3_600_000 });
  let started = performance.now();
  const cpuBefore = process.cpuUsage();
  for (let file = 0; file < FILES; file += 1) {
    const rows = vectors.slice(file * perFile, (file + 1) * perFile);
    if (rows.length === 0) break;
    await data.commitFile(`file-${file}`, rows.map((_, index) => ({ text: `chunk ${index} of file ${file}`, tokens: 6 })), rows);
  }
  results.build_s = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  results.build_cpu_s = (cpu.user + cpu.system) / 1e6;
  started = performance.now();
  await data.close();
  results.save_s = (performance.now() - started) / 1000;

  const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--search', folder], {
    env: { ...process.env, BENCH_VS_KEY: key.toString('hex') },
    encoding: 'utf8',
    maxBuffer: 256 * 2 ** 20,
  });
  if (child.status !== 0) throw new Error(`search process failed: ${child.stderr}`);
  const searched = JSON.parse(child.stdout);
  results.load_s = searched.load_s;
  results.rss_mb = searched.rss_mb;
  results.baseline_rss_mb = searched.baseline_rss_mb;
  const truths = queries.map((query) => exactTopK(query));
  for (const name of Object.keys(FILTERS)) {
    const cell = searched.cases[name];
    let found = 0;
    cell.hits.forEach((hits, index) => {
      for (const hit of hits) if (truths[index][name].has(hit)) found += 1;
    });
    results[name] = { p50_ms: cell.p50_ms, p99_ms: cell.p99_ms, recall_at_10: found / (QUERIES * K) };
  }
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
    // One document first, untimed: loads the tokenizer's rank table and warms the code paths.
    await fetch(`${gateway.url}/v1/vector_stores/${store.id}/sources/text`, { method: 'POST', headers, body: JSON.stringify({ name: 'warm-up.txt', text: vocabulary.slice(0, 500).join(' ') }) }).then((response) => response.arrayBuffer());
    await gateway.app.vectorStores.idle();
    const chunksBefore = (await gateway.app.vectorStores.data(store.id)).liveChunks;
    let bytes = 0;
    const begin = performance.now();
    const cpuBefore = process.cpuUsage();
    for (let document = 0; document < documents; document += 1) {
      const paragraphs = Array.from({ length: 40 }, () => `${Array.from({ length: 80 }, () => vocabulary[Math.floor(random() * random() * vocabulary.length)]).join(' ')}.`);
      const text = paragraphs.join('\n\n');
      bytes += Buffer.byteLength(text);
      await fetch(`${gateway.url}/v1/vector_stores/${store.id}/sources/text`, { method: 'POST', headers, body: JSON.stringify({ name: `doc-${document}.txt`, text }) }).then((response) => response.arrayBuffer());
    }
    await gateway.app.vectorStores.idle();
    const seconds = (performance.now() - begin) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const final = await (await fetch(`${gateway.url}/v1/vector_stores/${store.id}`, { headers })).json();
    const chunks = (await gateway.app.vectorStores.data(store.id)).liveChunks - chunksBefore;
    return { documents, completed: final.file_counts.completed - 1, chunks, mb: bytes / 1e6, seconds, cpu_s: (cpu.user + cpu.system) / 1e6, chunks_per_s: chunks / seconds, mb_per_s: bytes / 1e6 / seconds };
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
console.log(
  `\nbuild ${results.build_s.toFixed(1)} s wall, ${results.build_cpu_s.toFixed(1)} s CPU (${FILES} sealed commits); save ${results.save_s.toFixed(2)} s; load ${results.load_s.toFixed(2)} s; ` +
    `RSS of the searching process ${results.rss_mb.toFixed(0)} MB (${results.baseline_rss_mb.toFixed(0)} MB before loading)`,
);
console.log(
  `ingest (local-embed, sources/text, auto chunking): ${ingest.completed}/${ingest.documents} documents, ${ingest.chunks} chunks, ${ingest.mb.toFixed(2)} MB in ${ingest.seconds.toFixed(1)} s wall ` +
    `(${ingest.cpu_s.toFixed(1)} s CPU) → ${ingest.chunks_per_s.toFixed(0)} chunks/s, ${ingest.mb_per_s.toFixed(2)} MB/s`,
);
