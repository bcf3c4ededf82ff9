// What the event loop pays for a search through the HNSW index thread (hnsw-index.ts), per
// thread: the main thread's CPU per search (its schedstat run time) against the other threads'
// (the index thread's walk and messages), 8 searches in flight. BENCH_HOP_INDEX=path/index.hnsw
// loads a saved index (e.g. the kept 100k-chunk store's) and sends sparse queries like
// local-embed's (12 of 384 columns nonzero); without it a 64-point index isolates the hop.
// BENCH_HOP_BUILD=dir measures another build's dist/ (A/B runs); BENCH_HOP_CALLS scales it.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { seededRandom } from './process.mjs';

const root = process.env.BENCH_HOP_BUILD ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { HnswIndex } = await import(path.join(root, 'dist', 'vector-stores', 'hnsw-index.js'));

const DIMENSIONS = 384;
const CALLS = Number(process.env.BENCH_HOP_CALLS ?? 20_000);
const IN_FLIGHT = Number(process.env.BENCH_HOP_IN_FLIGHT ?? 8);
const K = 30;
const random = seededRandom(11);
const saved = process.env.BENCH_HOP_INDEX;
/** BENCH_HOP_LOOP_US=N: N µs of other event-loop work per search (the gateway's loop is saturated), not counted. */
const LOOP_US = Number(process.env.BENCH_HOP_LOOP_US ?? 0);
const spin = (us) => {
  const until = performance.now() + us / 1000;
  while (performance.now() < until);
};

function sparseQuery() {
  const query = new Float32Array(DIMENSIONS);
  for (let n = 0; n < 12; n += 1) query[Math.floor(random() * DIMENSIONS)] = random() - 0.5;
  const norm = Math.hypot(...query);
  return query.map((value) => value / norm);
}

let index;
if (saved !== undefined) index = await HnswIndex.load(saved, DIMENSIONS);
else {
  index = HnswIndex.create(DIMENSIONS, 64);
  await index.add(Array.from({ length: 64 }, () => Array.from({ length: DIMENSIONS }, () => random() - 0.5)), Array.from({ length: 64 }, (_, label) => label));
}
const queries = Array.from({ length: 256 }, sparseQuery);

/** Run time (ns) of each thread of this process, by thread id. */
function threadTimes() {
  const times = new Map();
  for (const tid of readdirSync('/proc/self/task')) times.set(tid, Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]));
  return times;
}

async function run(calls) {
  let next = 0;
  const worker = async () => {
    while (next < calls) {
      const hits = await index.search(queries[next++ % queries.length], K);
      if (hits.length === 0) throw new Error('no hits');
      if (LOOP_US > 0) {
        await new Promise((resolve) => setImmediate(resolve));
        spin(LOOP_US);
      }
    }
  };
  const before = threadTimes();
  const started = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const wall = performance.now() - started;
  const after = threadTimes();
  const main = String(process.pid);
  let mainNs = 0;
  let othersNs = 0;
  for (const [tid, ns] of after) {
    const used = ns - (before.get(tid) ?? 0);
    if (tid === main) mainNs = used;
    else othersNs += used;
  }
  return { main: mainNs / 1000 / calls - LOOP_US, others: othersNs / 1000 / calls, wall: (wall * 1000) / calls };
}

await run(Math.min(2000, CALLS)); // warm-up
const result = await run(CALLS);
console.log(`${saved ?? '64-point index'}, ${IN_FLIGHT} in flight, ${LOOP_US} µs other loop work, ${CALLS} searches: event loop ${result.main.toFixed(1)} µs/search, other threads ${result.others.toFixed(1)} µs/search, wall ${result.wall.toFixed(1)} µs/search`);
await index.close();
