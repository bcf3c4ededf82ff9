// A/B of two igw builds' CPU per request on a shared, noisy machine: both builds run side by side
// on the same fake upstream and take the same load in short alternating slices (the order flips
// every pair), so whatever else the machine is doing hits both alike. Each slice's CPU comes from
// /proc (utime + stime of the whole process, GC threads included); the answer is the median of
// the per-pair ratios B/A and the pooled µs per request of each build.
//   A_ROOT=/path/to/other/checkout node bench/gateway-ab.mjs [chat|stream|embeddings ...]
// B is this checkout (A_ROOT=. compares a build with itself: the noise floor, or with A_NODE_FLAGS /
// B_NODE_FLAGS, a V8 flag such as --max-semi-space-size). Each root needs its dist/ built. AB_PAIRS (default 20), AB_SLICE_MS (default
// 500) and AB_CONNECTIONS (default 32) size the run.
import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { Pool } from 'undici';
import { prepareGateway, root, SCENARIOS, startFakeUpstream } from './gateway-setup.mjs';
import { cpuSeconds, firstLine } from './process.mjs';

const aRoot = process.env.A_ROOT;
if (aRoot === undefined) throw new Error('A_ROOT: the checkout to compare this one with (its dist/ built)');
const scenarioNames = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['chat', 'stream', 'embeddings'];
const pairs = Number(process.env.AB_PAIRS ?? 20);
const sliceMs = Number(process.env.AB_SLICE_MS ?? 500);
const connections = Number(process.env.AB_CONNECTIONS ?? 32);

const { upstream, upstreamOrigin } = await startFakeUpstream();
async function startBuild(name, buildRoot) {
  const { workDir, env, key } = await prepareGateway(upstreamOrigin, `igw-ab-${name}-`);
  const flags = (process.env[`${name}_NODE_FLAGS`] ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...flags, path.join(buildRoot, 'bin/igw.js'), 'serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
  const origin = (await firstLine(child)).replace('igw listening on ', '');
  return { name, child, workDir, key, pool: new Pool(origin, { connections, pipelining: 1 }) };
}
const builds = [await startBuild('A', aRoot), await startBuild('B', root)];

/** One slice of load on one build: requests answered and CPU seconds spent. */
async function slice(build, scenario, milliseconds) {
  const request = () => build.pool.request({ method: 'POST', path: scenario.pathName, headers: { 'content-type': 'application/json', authorization: `Bearer ${build.key}` }, body: scenario.body });
  const cpuBefore = await cpuSeconds(build.child.pid);
  const deadline = performance.now() + milliseconds;
  let count = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < deadline) {
        const response = await request();
        await response.body.dump();
        if (response.statusCode !== 200) throw new Error(`${build.name}: status ${response.statusCode}`);
        count += 1;
      }
    }),
  );
  return { count, cpu: (await cpuSeconds(build.child.pid)) - cpuBefore };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];
const loadAverage = async () => (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ');
console.log(`gateway A/B: A = ${aRoot} ${process.env.A_NODE_FLAGS ?? ''}, B = ${root} ${process.env.B_NODE_FLAGS ?? ''}; ${pairs} pairs of ${sliceMs} ms slices at ${connections} connections; load average ${await loadAverage()} before`);
try {
  for (const name of scenarioNames) {
    const scenario = SCENARIOS[name];
    for (const build of builds) await slice(build, scenario, 1000); // warm-up: JIT, pools, tokenizer
    const totals = new Map(builds.map((build) => [build.name, { count: 0, cpu: 0 }]));
    const ratios = [];
    for (let pair = 0; pair < pairs; pair += 1) {
      const order = pair % 2 === 0 ? builds : [...builds].reverse();
      const results = {};
      for (const build of order) {
        results[build.name] = await slice(build, scenario, sliceMs);
        const total = totals.get(build.name);
        total.count += results[build.name].count;
        total.cpu += results[build.name].cpu;
      }
      // CPU per request of B over A in this pair (the /proc clock ticks at 10 ms: short slices are coarse, the median evens it out).
      if (results.A.count > 0 && results.B.count > 0 && results.A.cpu > 0) ratios.push(results.B.cpu / results.B.count / (results.A.cpu / results.A.count));
    }
    const perRequest = (name) => ((totals.get(name).cpu * 1e6) / totals.get(name).count).toFixed(0);
    console.log(
      `${scenario.name}: CPU per request A ${perRequest('A')} us, B ${perRequest('B')} us; B/A per pair median ${median(ratios).toFixed(3)} (quartiles ${quantile(ratios, 0.25).toFixed(3)}-${quantile(ratios, 0.75).toFixed(3)}, ${ratios.length} pairs)`,
    );
  }
} finally {
  for (const build of builds) {
    build.child.kill('SIGTERM');
    await build.pool.close();
  }
  upstream.kill('SIGTERM');
  await Promise.all(builds.map((build) => new Promise((resolve) => (build.child.exitCode === null ? build.child.once('exit', resolve) : resolve()))));
  for (const build of builds) await rm(build.workDir, { recursive: true, force: true });
}
console.log(`load average ${await loadAverage()} after`);
