// npm run bench (batch part): a 10,000-row batch on the built-in local-echo model and on a
// loopback fake upstream, and the create-time validation of a 100 MB input file. igw runs as its
// own process (`igw serve`); rows/s is measured from the create call to the terminal status, peak
// RSS is sampled from /proc every 50 ms.
import { spawn } from 'node:child_process';
import { openAsBlob } from 'node:fs';
import { mkdtemp, rm, writeFile, open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { firstLine, rssMb } from './process.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROWS = Number(process.env.BENCH_BATCH_ROWS ?? 10_000);
const BIG_MB = Number(process.env.BENCH_BATCH_BIG_MB ?? 100);

/** Samples a process's RSS until stopped; returns the peak in MB. */
function rssSampler(pid) {
  let peak = 0;
  const timer = setInterval(() => void rssMb(pid).then((mb) => (peak = Math.max(peak, mb)), () => undefined), 50);
  return { stop: async () => (clearInterval(timer), Math.max(peak, await rssMb(pid))) };
}

const upstream = spawn(process.execPath, [path.join(root, 'bench/fake-upstream.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
const upstreamOrigin = `http://127.0.0.1:${Number(await firstLine(upstream))}`;
const workDir = await mkdtemp(path.join(tmpdir(), 'igw-bench-batch-'));
const configPath = path.join(workDir, 'igw.config.json');
await writeFile(
  configPath,
  JSON.stringify({
    providers: { bench: { kind: 'openai', base_url: `${upstreamOrigin}/v1`, api_key: 'bench' } },
    models: {
      'bench-model': { type: 'chat', context_length: 128000, routes: [{ provider: 'bench', upstream_model: 'bench-model', flavors: ['batch'], pricing: { input_cost_per_million_eur: 0.14, output_cost_per_million_eur: 0.55 }, energy: { wh_per_1k_input_tokens: 0.02, wh_per_1k_output_tokens: 0.2 } }] },
    },
  }),
);
const env = { ...process.env, IGW_DATA_DIR: path.join(workDir, 'data'), IGW_CONFIG: configPath };
const key = await firstLine(spawn(process.execPath, [path.join(root, 'bin/igw.js'), 'keys', 'create', '--name', 'bench'], { env, stdio: ['ignore', 'pipe', 'ignore'] }));
const igw = spawn(process.execPath, [path.join(root, 'bin/igw.js'), 'serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
const origin = (await firstLine(igw)).replace('igw listening on ', '');
const auth = { authorization: `Bearer ${key}` };

async function api(method, pathName, body) {
  const response = await fetch(`${origin}${pathName}`, { method, headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await response.json();
  if (!response.ok) throw new Error(`${method} ${pathName}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

async function upload(file) {
  const form = new FormData();
  form.append('purpose', 'batch');
  form.append('file', await openAsBlob(file), path.basename(file));
  const response = await fetch(`${origin}/v1/files`, { method: 'POST', headers: auth, body: form });
  if (!response.ok) throw new Error(`upload: ${response.status} ${await response.text()}`);
  return (await response.json()).id;
}

/** Writes `rows` lines through one file handle, in blocks (the generator itself stays small). */
async function writeJsonl(file, rows, lineOf) {
  const handle = await open(file, 'w');
  let block = [];
  for (let index = 0; index < rows; index += 1) {
    block.push(lineOf(index));
    if (block.length === 1000) {
      await handle.write(`${block.join('\n')}\n`);
      block = [];
    }
  }
  if (block.length > 0) await handle.write(`${block.join('\n')}\n`);
  await handle.close();
}

const chatRow = (model, content) => (index) => JSON.stringify({ custom_id: `r${index}`, method: 'POST', url: '/v1/chat/completions', body: { model, messages: [{ role: 'user', content: content(index) }] } });

async function runBatch(model) {
  const file = path.join(workDir, `${model}.jsonl`);
  await writeJsonl(file, ROWS, chatRow(model, (index) => `Say something short about fox number ${index}.`));
  const inputFileId = await upload(file);
  const sampler = rssSampler(igw.pid);
  const started = performance.now();
  let batch = await api('POST', '/v1/batches', { input_file_id: inputFileId, endpoint: '/v1/chat/completions' });
  while (!['succeeded', 'failed', 'expired', 'cancelled'].includes(batch.status)) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    batch = await api('GET', `/v1/batches/${batch.id}`);
  }
  const seconds = (performance.now() - started) / 1000;
  return { model, status: batch.status, succeeded: batch.request_counts.succeeded, errored: batch.request_counts.errored, seconds, rowsPerSecond: ROWS / seconds, peakRss: await sampler.stop() };
}

async function validateBig() {
  const file = path.join(workDir, 'big.jsonl');
  // ~2 KB per line: 50,000 rows (the default batches.max_requests_per_file) make ~100 MB.
  const filler = 'lorem ipsum dolor sit amet '.repeat(Math.ceil(2000 / 27)).slice(0, Math.floor((BIG_MB * 1024 * 1024) / 50_000) - 130);
  await writeJsonl(file, 50_000, chatRow('local-echo', (index) => `${index} ${filler}`));
  const bytes = (await import('node:fs')).statSync(file).size;
  const sampler = rssSampler(igw.pid);
  const uploadStarted = performance.now();
  const inputFileId = await upload(file);
  const uploadSeconds = (performance.now() - uploadStarted) / 1000;
  const started = performance.now();
  const batch = await api('POST', '/v1/batches', { input_file_id: inputFileId, endpoint: '/v1/chat/completions' });
  const validateSeconds = (performance.now() - started) / 1000;
  const peakRss = await sampler.stop();
  await api('POST', `/v1/batches/${batch.id}/cancel`);
  return { bytes, rows: batch.request_counts.total, uploadSeconds, validateSeconds, peakRss };
}

let big;
const runs = [];
try {
  big = await validateBig();
  runs.push(await runBatch('local-echo'));
  runs.push(await runBatch('bench-model'));
} finally {
  igw.kill('SIGTERM');
  upstream.kill('SIGTERM');
  await new Promise((resolve) => igw.once('exit', resolve));
  await rm(workDir, { recursive: true, force: true });
}

console.log(`\nigw batch bench: ${ROWS} rows per batch, batches.concurrency 8 (default), node ${process.version}\n`);
console.log('| batch | status | succeeded | errored | seconds | rows/s | igw peak RSS MB |');
console.log('|---|---|---:|---:|---:|---:|---:|');
for (const run of runs) {
  console.log(`| ${run.model === 'local-echo' ? 'local-echo (built-in)' : 'loopback fake upstream'} | ${run.status} | ${run.succeeded} | ${run.errored} | ${run.seconds.toFixed(1)} | ${run.rowsPerSecond.toFixed(0)} | ${run.peakRss.toFixed(0)} |`);
}
console.log(`\nValidating a ${(big.bytes / 1024 / 1024).toFixed(0)} MB input (${big.rows} rows): upload ${big.uploadSeconds.toFixed(1)} s (sealed on the way to disk), create-time validation ${big.validateSeconds.toFixed(1)} s, igw peak RSS ${big.peakRss.toFixed(0)} MB (target < 150)`);
