// The cost of one search message to the HNSW index thread and back (hnsw-index.ts): CPU of the
// whole process (both threads) per call, on an index so small that the walk itself is a few µs,
// one at a time and 8 in flight (the gateway's search bench load). BENCH_RT_CALLS scales it.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { seededRandom } from './process.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { HnswIndex } = await import(path.join(root, 'dist', 'vector-stores', 'hnsw-index.js'));

const DIMENSIONS = 384;
const POINTS = 64;
const CALLS = Number(process.env.BENCH_RT_CALLS ?? 20_000);
const K = 30;
const random = seededRandom(7);
const vector = () => Array.from({ length: DIMENSIONS }, () => random() - 0.5);

const index = HnswIndex.create(DIMENSIONS, POINTS);
await index.add(Array.from({ length: POINTS }, vector), Array.from({ length: POINTS }, (_, label) => label));
const queries = Array.from({ length: 64 }, vector);

async function run(inFlight) {
  let next = 0;
  const worker = async () => {
    while (next < CALLS) {
      const hits = await index.search(queries[next++ % queries.length], K);
      if (hits.length !== K) throw new Error(`expected ${K} hits, got ${hits.length}`);
    }
  };
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { inFlight, cpu_us_per_call: (used.user + used.system) / CALLS, wall_us_per_call: (wall * 1000) / CALLS };
}

await run(8); // warm-up
console.log('| in flight | process CPU µs per search call | wall µs per call |');
console.log('|---:|---:|---:|');
for (const inFlight of [1, 8]) {
  const result = await run(inFlight);
  console.log(`| ${result.inFlight} | ${result.cpu_us_per_call.toFixed(1)} | ${result.wall_us_per_call.toFixed(1)} |`);
}
await index.close();
