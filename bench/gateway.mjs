// npm run bench: igw next to a bare node:http pass-through and a direct call, same fake
// upstream, same run, same load generator. Four processes: fake upstream, pass-through, igw,
// and this client. Auth, routing, billing and the request log are all on in igw.
import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { Pool } from 'undici';
import { prepareGateway, root, SCENARIOS, startFakeUpstream } from './gateway-setup.mjs';
import { firstLine, cpuSeconds, rssMb } from './process.mjs';

const DURATION_MS = Number(process.env.BENCH_SECONDS ?? 2) * 1000;
// Processes share two cores here, so single runs are noisy: rounds interleave the targets and
// the table reports each cell's median round.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '1,32,128').split(',').map(Number);

async function load({ origin, pathName, body, headers, connections, pid }) {
  const pool = new Pool(origin, { connections, pipelining: 1 });
  const latencies = [];
  const firstBytes = [];
  let errors = 0;
  let peakRss = 0;
  const request = () => pool.request({ method: 'POST', path: pathName, headers: { 'content-type': 'application/json', ...headers }, body });
  const warmUntil = Date.now() + 300;
  while (Date.now() < warmUntil) await request().then((response) => response.body.dump());
  const cpuBefore = pid === undefined ? 0 : await cpuSeconds(pid);
  const sampler = pid === undefined ? null : setInterval(() => void rssMb(pid).then((mb) => (peakRss = Math.max(peakRss, mb)), () => undefined), 200);
  const started = performance.now();
  const deadline = started + DURATION_MS;
  const worker = async () => {
    while (performance.now() < deadline) {
      const begin = performance.now();
      try {
        const response = await request();
        let first = 0;
        let bytes = 0;
        for await (const part of response.body) {
          if (first === 0) first = performance.now() - begin;
          bytes += part.length;
        }
        if (response.statusCode !== 200 || bytes === 0) errors += 1;
        else {
          latencies.push(performance.now() - begin);
          firstBytes.push(first);
        }
      } catch {
        errors += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const seconds = (performance.now() - started) / 1000;
  if (sampler !== null) clearInterval(sampler);
  const cpu = pid === undefined ? NaN : (await cpuSeconds(pid)) - cpuBefore;
  await pool.close();
  const quantile = (values, q) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  };
  const rps = latencies.length / seconds;
  return { rps, perCore: cpu > 0 ? latencies.length / cpu : NaN, p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99), ttfb: quantile(firstBytes, 0.5), errors, rss: peakRss };
}

const { upstream, upstreamOrigin } = await startFakeUpstream();
const passthrough = spawn(process.execPath, [path.join(root, 'bench/passthrough.mjs'), upstreamOrigin], { stdio: ['ignore', 'pipe', 'inherit'] });
const passthroughOrigin = await firstLine(passthrough);
const { workDir, env, key } = await prepareGateway(upstreamOrigin, 'igw-bench-');
const igw = spawn(process.execPath, [path.join(root, 'bin/igw.js'), 'serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
const igwOrigin = (await firstLine(igw)).replace('igw listening on ', '');
// BENCH_FLOOR=1 adds the floor experiment (bench/gateway-floor.mjs): only igw's unavoidable steps.
const floor = process.env.BENCH_FLOOR === '1' ? spawn(process.execPath, [path.join(root, 'bench/gateway-floor.mjs'), upstreamOrigin, key], { stdio: ['ignore', 'pipe', 'ignore'] }) : null;
const floorOrigin = floor === null ? null : await firstLine(floor);

const scenarios = [SCENARIOS.chat, SCENARIOS.stream, SCENARIOS.embeddings];
const targets = [
  { via: 'direct', origin: upstreamOrigin, headers: {}, pid: upstream.pid },
  { via: 'pass-through', origin: passthroughOrigin, headers: {}, pid: passthrough.pid },
  { via: 'igw', origin: igwOrigin, headers: { authorization: `Bearer ${key}` }, pid: igw.pid },
  ...(floor === null ? [] : [{ via: 'floor', origin: floorOrigin, headers: { authorization: `Bearer ${key}` }, pid: floor.pid }]),
];

// The machine may be shared: the load average before and after the run goes with the tables.
const loadAverage = async () => (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ');
const loadBefore = await loadAverage();
const cells = new Map();
try {
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const scenario of scenarios) {
      for (const connections of CONNECTIONS) {
        for (const target of targets) {
          const result = await load({ ...scenario, ...target, connections });
          const keyName = `${scenario.name}|${connections}|${target.via}`;
          cells.set(keyName, [...(cells.get(keyName) ?? []), result]);
        }
      }
    }
  }
} finally {
  for (const child of [igw, passthrough, upstream, floor]) child?.kill('SIGTERM');
  await new Promise((resolve) => igw.once('exit', resolve));
  await rm(workDir, { recursive: true, force: true });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const cell = (name, connections, via) => {
  const results = cells.get(`${name}|${connections}|${via}`);
  return Object.fromEntries(['rps', 'perCore', 'p50', 'p99', 'ttfb', 'rss'].map((metric) => [metric, median(results.map((result) => result[metric]))]).concat([['errors', results.reduce((sum, result) => sum + result.errors, 0)]]));
};
const fixed = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '-');

console.log(`\nigw bench: ${DURATION_MS / 1000} s per cell, median of ${ROUNDS} interleaved rounds, node ${process.version}, ${(await readFile('/proc/cpuinfo', 'utf8')).match(/^processor/gm).length} cores, load average ${loadBefore} before and ${await loadAverage()} after\n`);
console.log('| scenario | conns | via | req/s | req/s per core | p50 ms | p99 ms | first byte p50 ms | peak RSS MB | errors |');
console.log('|---|---:|---|---:|---:|---:|---:|---:|---:|---:|');
for (const scenario of scenarios) {
  for (const connections of CONNECTIONS) {
    for (const { via } of targets) {
      const result = cell(scenario.name, connections, via);
      console.log(`| ${scenario.name} | ${connections} | ${via} | ${fixed(result.rps, 0)} | ${fixed(result.perCore, 0)} | ${fixed(result.p50)} | ${fixed(result.p99)} | ${fixed(result.ttfb)} | ${via === 'direct' ? '-' : fixed(result.rss, 0)} | ${result.errors} |`);
    }
  }
}

for (const via of floor === null ? ['igw'] : ['igw', 'floor']) {
  console.log(`\nTargets (issue 18, item 3), ${via} against the pass-through:\n`);
  console.log('| scenario | per-core ratio (≥ 0.5 chat and embeddings, ≥ 0.4 chat stream) | added p50 at 1 conn ms (≤ 0.3) | added first byte at 1 conn ms (≤ 0.5) | p99 ratio at 128 (≤ 2) | peak RSS MB (≤ 130) |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const scenario of scenarios) {
    const low = Math.min(...CONNECTIONS);
    const high = Math.max(...CONNECTIONS);
    const igwLow = cell(scenario.name, low, via);
    const passLow = cell(scenario.name, low, 'pass-through');
    const igwHigh = cell(scenario.name, high, via);
    const passHigh = cell(scenario.name, high, 'pass-through');
    const ratios = CONNECTIONS.map((connections) => cell(scenario.name, connections, via).perCore / cell(scenario.name, connections, 'pass-through').perCore);
    console.log(
      `| ${scenario.name} | ${fixed(Math.min(...ratios))} | ${fixed(igwLow.p50 - passLow.p50)} | ${fixed(igwLow.ttfb - passLow.ttfb)} | ${fixed(igwHigh.p99 / passHigh.p99)} | ${fixed(Math.max(...CONNECTIONS.map((connections) => cell(scenario.name, connections, via).rss)), 0)} |`,
    );
  }
}
