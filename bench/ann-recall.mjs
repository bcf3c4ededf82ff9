// npm run bench (part 2b): recall of the HNSW walk against exact cosine, per efSearch, for the
// queries bench/ingest.mjs sends (three vocabulary words, local-embed), at k = the store search's
// candidate counts (30 per side; 50 when a reranker reads the fused candidates), with the CPU
// each walk costs (hnswlib-node reading the query array included, ~60 µs). What it showed on
// local-embed (HNSW_PARAMS in hnsw-index.ts): recall@30 ≈ 0.41–0.45 at ef 128 on the kept 100k
// store, falling with ef; 0.77 on 100k chunks of real text (BENCH_ANN_TEXT=/usr/share/man). What
// the user gets, the fused top 10, is bench/ann-fused.mjs's measure.
// BENCH_ANN_INDEX=path/to/index.hnsw reads a kept store's snapshot (e.g. the 100k-chunk store a
// BENCH_INGEST_REUSE run searches); otherwise BENCH_ANN_CHUNKS (default 20,000) note-sized texts
// like bench/ingest.mjs's are embedded and indexed here with HNSW_PARAMS. BENCH_ANN_QUERIES: 200.
// BENCH_ANN_TEXT=<folder> builds the chunks from the real text of its files instead (folderChunks),
// queried with three words of a random chunk.
// BENCH_ANN_GRAPHS="M:efConstruction,..." builds those graphs instead of HNSW_PARAMS' one.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { seededRandom } from './process.mjs';
import { chunkQuery, folderChunks } from './real-text.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { HNSW_PARAMS } = await import(path.join(root, 'dist', 'vector-stores', 'hnsw-index.js'));
const { embedText, HASH_EMBED_DIMENSIONS } = await import(path.join(root, 'dist', 'providers', 'local', 'hash-embed.js'));
// The bench reads the library directly: it sets ef per walk, which the gateway's index handle does not offer.
const { HierarchicalNSW } = createRequire(import.meta.url)('hnswlib-node');

const DIMENSIONS = HASH_EMBED_DIMENSIONS;
const QUERIES = Number(process.env.BENCH_ANN_QUERIES ?? 200);
const CHUNKS = Number(process.env.BENCH_ANN_CHUNKS ?? 20_000);
const EFS = [16, 32, 48, 64, 96, 128];
const KS = [10, 30, 50];

const vocabulary = Array.from({ length: 5000 }, (_, index) => `w${index.toString(36)}`);
const random = seededRandom(7);
const word = () => vocabulary[Math.floor(random() * random() * vocabulary.length)];
/** bench/ingest.mjs's note: two or three sentences of 12–31 words. */
function note(index) {
  const parts = [`Note ${index}.`];
  const sentences = 2 + Math.floor(random() * 2);
  for (let sentence = 0; sentence < sentences; sentence += 1) parts.push(`${Array.from({ length: 12 + Math.floor(random() * 20) }, word).join(' ')}.`);
  return parts.join(' ');
}

const documents = process.env.BENCH_ANN_TEXT === undefined ? null : folderChunks(process.env.BENCH_ANN_TEXT, CHUNKS);
const chunkTexts = [];

const started = performance.now();
let source;
const graphs = [];
if (process.env.BENCH_ANN_INDEX !== undefined) {
  const index = new HierarchicalNSW('cosine', DIMENSIONS);
  await index.readIndex(process.env.BENCH_ANN_INDEX);
  graphs.push({ name: 'snapshot', index });
  source = `snapshot ${path.basename(path.dirname(process.env.BENCH_ANN_INDEX))}`;
} else {
  const texts = documents ?? Array.from({ length: CHUNKS }, (_, label) => note(label));
  chunkTexts.push(...texts);
  const vectors = texts.map((text) => embedText(text));
  const specs = (process.env.BENCH_ANN_GRAPHS ?? `${HNSW_PARAMS.m}:${HNSW_PARAMS.efConstruction}`).split(',');
  for (const spec of specs) {
    const [m, efConstruction] = spec.split(':').map(Number);
    const index = new HierarchicalNSW('cosine', DIMENSIONS);
    index.initIndex({ maxElements: vectors.length, m, efConstruction, randomSeed: 100 });
    const cpu = process.cpuUsage();
    vectors.forEach((vector, label) => index.addPoint(vector, label));
    const used = process.cpuUsage(cpu);
    console.error(`M ${m} efConstruction ${efConstruction}: ${((used.user + used.system) / vectors.length).toFixed(0)} µs CPU per added point`);
    graphs.push({ name: `M ${m} efC ${efConstruction}`, index });
  }
  source = `${vectors.length} ${documents === null ? 'generated notes' : `chunks of the text under ${process.env.BENCH_ANN_TEXT}`}`;
}
const index = graphs[0].index;
// The stored points (unit length: the cosine space normalised them on insert), for the exact answer.
const labels = index.getIdsList();
const points = new Float32Array(labels.length * DIMENSIONS);
labels.forEach((label, row) => points.set(index.getPoint(label), row * DIMENSIONS));
console.error(`${source}: ${labels.length} points ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);

/** Three words of a random chunk (real text), or of the vocabulary (notes). */
function queryText() {
  if (documents === null) return `${word()} ${word()} ${word()}`;
  return chunkQuery(chunkTexts, random);
}
const queries = Array.from({ length: QUERIES }, () => embedText(queryText()));
const maxK = Math.max(...KS);
/** Exact top labels by cosine (the query is unit length), best first. */
function exactTop(query) {
  const scores = new Float32Array(labels.length);
  for (let row = 0; row < labels.length; row += 1) {
    let dot = 0;
    const offset = row * DIMENSIONS;
    for (let column = 0; column < DIMENSIONS; column += 1) dot += points[offset + column] * query[column];
    scores[row] = dot;
  }
  const order = Array.from(scores.keys()).sort((left, right) => scores[right] - scores[left]);
  return { labels: order.slice(0, maxK).map((row) => labels[row]), scores: order.slice(0, maxK).map((row) => scores[row]) };
}
const exact = queries.map(exactTop);
const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
// Near-ties are not what keeps recall low here: the exact scores at rank 1 and rank k stay apart.
console.error(`exact cosine, mean over queries: rank 1 ${mean(exact.map((top) => top.scores[0])).toFixed(3)}, rank 10 ${mean(exact.map((top) => top.scores[9])).toFixed(3)}, rank 30 ${mean(exact.map((top) => top.scores[29])).toFixed(3)}, rank 50 ${mean(exact.map((top) => top.scores[49])).toFixed(3)}`);

console.log(`| graph | ef | ${KS.map((k) => `recall@${k}`).join(' | ')} | ${KS.map((k) => `CPU µs per walk k=${k}`).join(' | ')} |`);
console.log(`|---|---:|${KS.map(() => '---:').join('|')}|${KS.map(() => '---:').join('|')}|`);
for (const { name, index } of graphs) for (const ef of EFS) {
  const recalls = [];
  const costs = [];
  for (const k of KS) {
    // hnswlib walks with max(ef, k): an ef below k is k.
    index.setEf(Math.max(ef, k));
    let found = 0;
    const cpu = process.cpuUsage();
    const answers = queries.map((query) => index.searchKnn(query, k));
    const used = process.cpuUsage(cpu);
    answers.forEach((answer, row) => {
      const truth = new Set(exact[row].labels.slice(0, k));
      for (const label of answer.neighbors) if (truth.has(label)) found += 1;
    });
    recalls.push((found / (k * queries.length)).toFixed(3));
    costs.push((used.user + used.system) / queries.length);
  }
  console.log(`| ${name} | ${ef} | ${recalls.join(' | ')} | ${costs.map((value) => value.toFixed(0)).join(' | ')} |`);
}
