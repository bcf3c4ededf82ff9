// Event-loop CPU per search of two builds, measured in interleaved bursts (issue 16): each build's
// `igw serve` on its own copy of the same kept store, both warm, then BURSTS rounds of SIZE
// searches (8 in flight, bench/ingest.mjs's query shape) to one, then the other, the order
// swapped every round; per burst the gateway's main-thread CPU (schedstat run time of its first
// thread) per search. Bursts of a second or two see the same machine load on both sides, where
// whole-bench runs 30 s apart differed by ±20 % on a shared 2-core VM.
//   node bench/search-ab.mjs OLD_REPO OLD_STORE_DIR NEW_REPO NEW_STORE_DIR [BURSTS=20] [SIZE=1500]
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import path from 'node:path';
import { leanConnection } from './lean-http.mjs';
import { firstLine, seededRandom } from './process.mjs';

/** A thread's CPU time in ms, to the nanosecond (schedstat), not in 10 ms ticks. */
async function threadCpuMs(pid, thread = pid) {
  return Number((await readFile(`/proc/${pid}/task/${thread}/schedstat`, 'utf8')).split(' ')[0]) / 1e6;
}

/** The process's CPU time in ms: every thread's (the index thread, V8's GC helpers, the thread pool). */
async function processCpuMs(pid) {
  const threads = await readdir(`/proc/${pid}/task`);
  const times = await Promise.all(threads.map((thread) => threadCpuMs(pid, thread).catch(() => 0)));
  return times.reduce((sum, time) => sum + time, 0);
}

const [oldRepo, oldStore, newRepo, newStore, burstsArg = '20', sizeArg = '1500'] = process.argv.slice(2);
if (newStore === undefined) throw new Error('usage: node bench/search-ab.mjs OLD_REPO OLD_STORE_DIR NEW_REPO NEW_STORE_DIR [BURSTS] [SIZE]');
const BURSTS = Number(burstsArg);
const SIZE = Number(sizeArg);

async function start(name, repo, storeDir) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([variable]) => !variable.startsWith('IGW_')));
  env.IGW_DATA_DIR = path.join(storeDir, 'data');
  env.IGW_CONFIG = path.join(storeDir, 'igw.config.json');
  const child = spawn(process.execPath, [path.join(repo, 'bin/igw.js'), 'serve', '--port', '0'], { env, cwd: storeDir, stdio: ['ignore', 'pipe', 'ignore'] });
  const origin = (await firstLine(child)).replace('igw listening on ', '').trim();
  const { key, storeId } = JSON.parse(await readFile(path.join(storeDir, 'bench.json'), 'utf8'));
  const connections = await Promise.all(Array.from({ length: 8 }, () => leanConnection(origin)));
  return { name, child, key, storeId, connections, perSearch: [], processPerSearch: [] };
}

const vocabulary = Array.from({ length: 5000 }, (_, index) => `w${index.toString(36)}`);
async function burst(side, random, count) {
  const headers = { authorization: `Bearer ${side.key}`, 'content-type': 'application/json' };
  let next = 0;
  await Promise.all(
    side.connections.map(async (connection) => {
      while (next < count) {
        next += 1;
        const query = Array.from({ length: 3 }, () => vocabulary[Math.floor(random() * random() * vocabulary.length)]).join(' ');
        const response = await connection.request('POST', `/v1/vector_stores/${side.storeId}/search`, headers, JSON.stringify({ query, max_num_results: 10 }));
        if (response.status !== 200) throw new Error(`${side.name}: search ${response.status}`);
      }
    }),
  );
}

const sides = [await start('old', oldRepo, oldStore), await start('new', newRepo, newStore)];
const loads = [];
try {
  // Warm: the store opens on first use, then its vector copy fills in the background.
  for (const side of sides) await burst(side, seededRandom(3), 3 * SIZE);
  await new Promise((resolve) => setTimeout(resolve, 15_000));
  for (const side of sides) await burst(side, seededRandom(5), SIZE);
  for (let round = 0; round < BURSTS; round += 1) {
    const order = round % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) {
      // The same queries for both sides in a round.
      const random = seededRandom(100 + round);
      const pid = side.child.pid;
      const before = await threadCpuMs(pid);
      const processBefore = await processCpuMs(pid);
      await burst(side, random, SIZE);
      side.perSearch.push(((await threadCpuMs(pid)) - before) / SIZE);
      side.processPerSearch.push(((await processCpuMs(pid)) - processBefore) / SIZE);
    }
    loads.push(loadavg()[0]);
  }
} finally {
  for (const side of sides) {
    for (const connection of side.connections) connection.close();
    side.child.kill('SIGTERM');
  }
}
const median = (values) => [...values].sort((left, right) => left - right)[Math.floor(values.length / 2)];
const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
console.log(`CPU ms per search over ${BURSTS} interleaved bursts of ${SIZE} (load ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}):`);
for (const [what, field] of [['event loop', 'perSearch'], ['whole gateway', 'processPerSearch']]) {
  const [old, fresh] = sides.map((side) => side[field]);
  const differences = old.map((value, index) => fresh[index] - value);
  const spread = Math.sqrt(differences.reduce((sum, value) => sum + (value - mean(differences)) ** 2, 0) / (differences.length - 1) / differences.length);
  console.log(`  ${what}: old median ${median(old).toFixed(3)} mean ${mean(old).toFixed(3)} | new median ${median(fresh).toFixed(3)} mean ${mean(fresh).toFixed(3)}`);
  console.log(`    new - old per round: median ${median(differences).toFixed(3)}, mean ${mean(differences).toFixed(3)} ± ${spread.toFixed(3)} (standard error), ${differences.filter((value) => value < 0).length} of ${BURSTS} rounds lower`);
}
