// What the HNSW walk's settings cost and give where it matters to the user: the store search's
// fused top 10 (hybrid-search.ts: the walk's 30 plus BM25's 60, scored and fused) against the
// same search with an exhaustive semantic side (exact cosine top 30), on a kept store, for
// bench/ingest.mjs's three-word local-embed queries. bench/ann-recall.mjs measures the walk
// alone (recall@k); this one measures the answer.
// BENCH_ANN_STORE=<data dir> (a copy of a kept store's data dir, e.g. a BENCH_INGEST_REUSE one:
// never one a gateway has open). Its store's snapshot is read here, and BENCH_ANN_GRAPHS
// ("kept" or "M:efConstruction", comma separated; default "kept") are walked: "kept" is the
// snapshot's own graph, the others are built here from its vectors in label order, timed (the
// index thread's CPU per added point during ingestion). The walks' CPU is process CPU: wait for
// the store's background work (its text fill) to end first, which the exact answers' time covers. BENCH_ANN_EFS (default 32,48,64,96,128),
// BENCH_ANN_QUERIES (default 200). BENCH_ANN_TEXT=<folder> instead builds a store of real text
// (bench/real-text.mjs; e.g. /usr/share/man) here, queried with three words of a chunk. Prints, per graph and ef: recall@30 of the walk, the fused
// top-10 agreement, and CPU µs per walk (hnswlib-node's searchKnn, query array read included).
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { seededRandom } from './process.mjs';
import { chunkQuery, folderChunks } from './real-text.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const load = (file) => import(path.join(root, 'dist', file));
const { embedText, HASH_EMBED_DIMENSIONS } = await load('providers/local/hash-embed.js');
const { StoreData } = await load('vector-stores/store-data.js');
const { searchStore } = await load('vector-stores/hybrid-search.js');
const { DEFAULT_WEIGHTS } = await load('vector-stores/fusion.js');
const { keySealer } = await load('vector-stores/sealer.js');
const { loadDataKey } = await load('crypto/data-key.js');
const { HNSW_PARAMS } = await load('vector-stores/hnsw-index.js');
// The bench reads the library directly: it sets ef per walk and builds graphs the gateway's index handle does not offer.
const { HierarchicalNSW } = createRequire(import.meta.url)('hnswlib-node');

const dataDir = process.env.BENCH_ANN_STORE;
const textFolder = process.env.BENCH_ANN_TEXT;
if (dataDir === undefined && textFolder === undefined) throw new Error('set BENCH_ANN_STORE to a copy of a kept store data dir, or BENCH_ANN_TEXT to a folder of text');
const QUERIES = Number(process.env.BENCH_ANN_QUERIES ?? 200);
const EFS = (process.env.BENCH_ANN_EFS ?? '32,48,64,96,128').split(',').map(Number);
const GRAPHS = (process.env.BENCH_ANN_GRAPHS ?? 'kept').split(',');
const CANDIDATES = 30; // search.ts's MIN_CANDIDATES: each side's proposals at max_num_results 10
const KEEP = 10;
const DIMENSIONS = HASH_EMBED_DIMENSIONS;

let data;
let labels;
let points;
const kept = new HierarchicalNSW('cosine', DIMENSIONS);
let chunkTexts = null;
let scratch = null;
if (dataDir !== undefined) {
  // The store with the largest snapshot (the kept store; a bench's scratch store is gone or small).
  const storesDir = path.join(dataDir, 'vector_stores');
  let storeId;
  let largest = -1;
  for (const entry of await readdir(storesDir)) {
    const size = await stat(path.join(storesDir, entry, 'index.hnsw')).then((info) => info.size, () => -1);
    if (size > largest) [storeId, largest] = [entry, size];
  }
  const folder = path.join(storesDir, storeId);
  data = await StoreData.open(storeId, folder, keySealer(await loadDataKey(dataDir, process.env)));
  await kept.readIndex(path.join(folder, 'index.hnsw'));
  labels = kept.getIdsList().sort((left, right) => left - right);
  points = labels.map((label) => kept.getPoint(label));
  console.error(`store ${storeId}: ${labels.length} points`);
} else {
  // A store of BENCH_ANN_CHUNKS (default 100,000) real-text chunks, 100 per file, built here
  // (index and BM25 as ingestion builds them); "kept" is then a graph built with HNSW_PARAMS.
  chunkTexts = folderChunks(textFolder, Number(process.env.BENCH_ANN_CHUNKS ?? 100_000));
  scratch = await mkdtemp(path.join(tmpdir(), 'igw-ann-fused-'));
  data = await StoreData.open('bench', scratch, keySealer(randomBytes(32)), { snapshotDelayMs: 3_600_000 });
  points = chunkTexts.map((text) => embedText(text));
  for (let start = 0; start < chunkTexts.length; start += 100) {
    const texts = chunkTexts.slice(start, start + 100);
    await data.commitFile(`file-${start / 100}`, texts.map((text) => ({ text, tokens: text.split(' ').length })), points.slice(start, start + 100));
  }
  labels = points.map((_, label) => label);
  // Labels are handed out in commit order: chunk i is label i.
  if (data.chunkAt(labels.length - 1)?.fileId !== `file-${Math.floor((labels.length - 1) / 100)}`) throw new Error('labels out of commit order');
  kept.initIndex({ maxElements: labels.length, m: HNSW_PARAMS.m, efConstruction: HNSW_PARAMS.efConstruction, randomSeed: 100 });
  points.forEach((point, label) => kept.addPoint(point, label));
  console.error(`${labels.length} chunks of the text under ${textFolder}, committed`);
}

const vocabulary = Array.from({ length: 5000 }, (_, index) => `w${index.toString(36)}`);
const random = seededRandom(11);
const word = () => vocabulary[Math.floor(random() * random() * vocabulary.length)];
const texts = Array.from({ length: QUERIES }, () => (chunkTexts === null ? `${word()} ${word()} ${word()}` : chunkQuery(chunkTexts, random)));
const vectors = texts.map((text) => embedText(text));

// Exact cosine top 30 (the stored points are unit length; so is a normalised query).
const flat = new Float32Array(labels.length * DIMENSIONS);
points.forEach((point, row) => flat.set(point, row * DIMENSIONS));
function exactTop(vector) {
  const norm = Math.hypot(...vector) || 1;
  const query = Float32Array.from(vector, (value) => value / norm);
  const scores = new Float32Array(labels.length);
  for (let row = 0; row < labels.length; row += 1) {
    let dot = 0;
    const offset = row * DIMENSIONS;
    for (let column = 0; column < DIMENSIONS; column += 1) dot += flat[offset + column] * query[column];
    scores[row] = dot;
  }
  const order = Array.from(scores.keys()).sort((left, right) => scores[right] - scores[left]).slice(0, CANDIDATES);
  return order.map((row) => ({ label: labels[row], score: scores[row] }));
}
const exact = vectors.map(exactTop);

async function fusedTop(index, semantic) {
  data.nearest = async () => semantic;
  const hits = await searchStore(data, { text: texts[index], vector: vectors[index], weights: DEFAULT_WEIGHTS, candidates: CANDIDATES, keep: KEEP, acceptedFile: () => true, filtered: false });
  return hits.map((hit) => `${hit.fileId}:${hit.chunkIndex}`);
}
const truth = [];
for (let index = 0; index < QUERIES; index += 1) truth.push(await fusedTop(index, exact[index]));

function build(spec) {
  if (spec === 'kept') return { graph: kept, note: 'the snapshot graph' };
  const [m, efConstruction] = spec.split(':').map(Number);
  const graph = new HierarchicalNSW('cosine', DIMENSIONS);
  graph.initIndex({ maxElements: labels.length, m, efConstruction, randomSeed: 100 });
  const cpu = process.cpuUsage();
  labels.forEach((label, row) => graph.addPoint(points[row], label));
  const used = process.cpuUsage(cpu);
  return { graph, note: `built, ${((used.user + used.system) / labels.length).toFixed(0)} µs CPU per added point (M ${m}, efConstruction ${efConstruction})` };
}

// Quality first, graph by graph; then the walks' CPU, timed in interleaved rounds (every setting
// once per round, the best round kept) so that other load on the machine falls on all alike.
const settings = [];
for (const spec of GRAPHS) {
  const { graph, note } = build(spec);
  console.error(`${spec}: ${note}`);
  for (const ef of EFS) {
    graph.setEf(Math.max(ef, CANDIDATES));
    let found = 0;
    let common = 0;
    for (let index = 0; index < QUERIES; index += 1) {
      const walk = graph.searchKnn(vectors[index], CANDIDATES);
      const exactLabels = new Set(exact[index].map((hit) => hit.label));
      for (const label of walk.neighbors) if (exactLabels.has(label)) found += 1;
      const semantic = walk.neighbors.map((label, rank) => ({ label, score: 1 - walk.distances[rank] }));
      const expected = new Set(truth[index]);
      for (const key of await fusedTop(index, semantic)) if (expected.has(key)) common += 1;
    }
    settings.push({ spec, graph, ef, recall: found / (CANDIDATES * QUERIES), common: common / (KEEP * QUERIES), best: Infinity });
  }
}
for (let round = 0; round < 5; round += 1) {
  for (const setting of settings) {
    setting.graph.setEf(Math.max(setting.ef, CANDIDATES));
    const started = process.cpuUsage();
    for (const vector of vectors) setting.graph.searchKnn(vector, CANDIDATES);
    const used = process.cpuUsage(started);
    setting.best = Math.min(setting.best, (used.user + used.system) / QUERIES);
  }
}
console.log('| graph M:efC | ef | recall@30 | fused top-10 in common | CPU µs per walk |');
console.log('|---|---:|---:|---:|---:|');
for (const { spec, ef, recall, common, best } of settings) console.log(`| ${spec} | ${ef} | ${recall.toFixed(3)} | ${common.toFixed(3)} | ${best.toFixed(0)} |`);
if (scratch !== null) await rm(scratch, { recursive: true, force: true });
process.exit(0);
