// npm run bench: requests/s and latency of igw next to a direct call to the same loopback
// upstream, same run, same load generator. Three processes: fake upstream, igw, this client.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DURATION_MS = Number(process.env.BENCH_SECONDS ?? 3) * 1000;
// Three processes share two cores here, so single runs are noisy: rounds interleave the
// scenarios and the table reports each one's median round.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);

function firstLine(child) {
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout.on('data', (part) => {
      buffer += part;
      const newline = buffer.indexOf('\n');
      if (newline !== -1) resolve(buffer.slice(0, newline));
    });
    child.once('exit', (code) => reject(new Error(`process exited with ${code} before printing`)));
  });
}

async function run(origin, pathName, body, headers, streaming) {
  const pool = new Pool(origin, { connections: CONCURRENCY, pipelining: 1 });
  const latencies = [];
  let errors = 0;
  const deadline = performance.now() + DURATION_MS;
  const worker = async () => {
    while (performance.now() < deadline) {
      const started = performance.now();
      try {
        const response = await pool.request({ method: 'POST', path: pathName, headers: { 'content-type': 'application/json', ...headers }, body });
        let bytes = 0;
        for await (const part of response.body) bytes += part.length;
        if (response.statusCode !== 200 || bytes === 0 || (streaming && bytes < 100)) errors += 1;
        else latencies.push(performance.now() - started);
      } catch {
        errors += 1;
      }
    }
  };
  // Warm-up: connections, JIT.
  const warm = Date.now();
  while (Date.now() - warm < 500) await pool.request({ method: 'POST', path: pathName, headers: { 'content-type': 'application/json', ...headers }, body }).then((r) => r.body.dump());
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  const pick = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return { rps: latencies.length / seconds, p50: pick(0.5), p99: pick(0.99), errors, count: latencies.length };
}

const upstream = spawn(process.execPath, [path.join(root, 'bench/fake-upstream.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
const upstreamPort = Number(await firstLine(upstream));
const upstreamOrigin = `http://127.0.0.1:${upstreamPort}`;
const workDir = await mkdtemp(path.join(tmpdir(), 'igw-bench-'));
const configPath = path.join(workDir, 'igw.config.json');
await writeFile(
  configPath,
  JSON.stringify({
    plans: { developer: { benefits: ['advanced_models', 'api_usage', 'studio_access'], requests_per_minute: 100000000 } },
    providers: { bench: { kind: 'openai', base_url: `${upstreamOrigin}/v1`, api_key: 'bench' } },
    models: {
      'bench-chat': { type: 'chat', capabilities: { streaming: true }, context_length: 128000, routes: [{ provider: 'bench', upstream_model: 'bench-model', pricing: { input_cost_per_million_eur: 0.14, output_cost_per_million_eur: 0.55 }, energy: { wh_per_1k_input_tokens: 0.02, wh_per_1k_output_tokens: 0.2 } }] },
      'bench-embed': { type: 'embeddings', context_length: 8192, routes: [{ provider: 'bench', upstream_model: 'bench-embed', pricing: { input_cost_per_million_eur: 0.02 } }] },
    },
  }),
);
const env = { ...process.env, IGW_DATA_DIR: path.join(workDir, 'data'), IGW_CONFIG: configPath };
const keyProcess = spawn(process.execPath, [path.join(root, 'bin/igw.js'), 'keys', 'create', '--name', 'bench'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
const key = await firstLine(keyProcess);
const igw = spawn(process.execPath, [path.join(root, 'bin/igw.js'), 'serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
const igwOrigin = (await firstLine(igw)).replace('igw listening on ', '');

const chatBody = (model, stream) => JSON.stringify({ model, stream, messages: [{ role: 'user', content: 'Say something about foxes.' }] });
const scenarios = [
  ['chat', 'direct', upstreamOrigin, '/v1/chat/completions', chatBody('bench-model', false), {}, false],
  ['chat', 'igw', igwOrigin, '/v1/chat/completions', chatBody('bench-chat', false), { authorization: `Bearer ${key}` }, false],
  ['chat stream', 'direct', upstreamOrigin, '/v1/chat/completions', chatBody('bench-model', true), {}, true],
  ['chat stream', 'igw', igwOrigin, '/v1/chat/completions', chatBody('bench-chat', true), { authorization: `Bearer ${key}` }, true],
  ['embeddings', 'direct', upstreamOrigin, '/v1/embeddings', JSON.stringify({ model: 'bench-embed', input: 'foxes are quick' }), {}, false],
  ['embeddings', 'igw', igwOrigin, '/v1/embeddings', JSON.stringify({ model: 'bench-embed', input: 'foxes are quick' }), { authorization: `Bearer ${key}` }, false],
];

const results = scenarios.map(() => []);
try {
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [index, [, , origin, pathName, body, headers, streaming]] of scenarios.entries()) {
      results[index].push(await run(origin, pathName, body, headers, streaming));
    }
  }
} finally {
  igw.kill('SIGTERM');
  upstream.kill('SIGTERM');
  await new Promise((resolve) => igw.once('exit', resolve));
  await rm(workDir, { recursive: true, force: true });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const rows = scenarios.map(([name, via], index) => ({
  name,
  via,
  rps: median(results[index].map((result) => result.rps)),
  p50: median(results[index].map((result) => result.p50)),
  p99: median(results[index].map((result) => result.p99)),
  errors: results[index].reduce((sum, result) => sum + result.errors, 0),
}));
const fixed = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
console.log(`\nigw bench: ${CONCURRENCY} concurrent connections, ${DURATION_MS / 1000} s per scenario, median of ${ROUNDS} rounds, node ${process.version}\n`);
console.log('| scenario | via | req/s | p50 ms | p99 ms | added p50 ms | errors |');
console.log('|---|---|---:|---:|---:|---:|---:|');
for (const row of rows) {
  const direct = rows.find((other) => other.name === row.name && other.via === 'direct');
  const added = row.via === 'igw' && direct ? fixed(row.p50 - direct.p50) : '';
  console.log(`| ${row.name} | ${row.via} | ${fixed(row.rps, 0)} | ${fixed(row.p50)} | ${fixed(row.p99)} | ${added} | ${row.errors} |`);
}
