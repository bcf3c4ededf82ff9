// npm run bench (ingestion): many small files into one vector store through a real `igw serve`
// on the built-in models, the way `igw kb sync` sends them: each file uploaded (POST /v1/files)
// and attached (POST /v1/vector_stores/{id}/files) by a few concurrent workers, then indexed in
// the background. Reports files/s end to end (first upload → last file indexed), the rate of the
// first and the last tenth of the uploads (flat when adding a file costs the same at any size),
// CPU per file of the gateway and of this client, the gateway's peak RSS (VmHWM), and then search
// latency on the full store (8 concurrent searches). BENCH_INGEST_SIZES=1000,10000 picks the
// sizes (default 1000,10000,100000); BENCH_INGEST_CONCURRENCY the client workers (default 8);
// BENCH_INGEST_SEARCHES the searches (default 400); BENCH_INGEST_PROFILE=DIR a gateway CPU profile.
// BENCH_INGEST_KEEP=DIR keeps each size's gateway data under DIR/SIZE (key and store id in DIR/SIZE/bench.json);
// BENCH_INGEST_REUSE=DIR skips ingestion and times only the searches on stores kept that way (a
// profile then covers the search phase alone). BENCH_INGEST_NOTES_PER_FILE=N puts N notes in each
// file, chunked statically at 100 tokens (about 1.5 chunks a note): a store of 100,000 chunks in
// 1,000 files builds in a fraction of the time 100,000 one-note files take, for the search phase.
// BENCH_INGEST_WARMUP=N (default 2000) files go into a scratch store first, untimed, then deleted.
// BENCH_INGEST_SEARCH_WARMUP=N (default 1000) searches run before the timed ones, reported apart.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { leanConnection } from './lean-http.mjs';
import { cpuSeconds, firstLine, seededRandom } from './process.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SIZES = (process.env.BENCH_INGEST_SIZES ?? '1000,10000,100000').split(',').map(Number);
const CONCURRENCY = Number(process.env.BENCH_INGEST_CONCURRENCY ?? 8);
const NOTES_PER_FILE = Number(process.env.BENCH_INGEST_NOTES_PER_FILE ?? 1);
/** Files ingested into a scratch store (then deleted) before the timed run: BENCH_INGEST_WARMUP, 0 for none. */
const WARMUP = Number(process.env.BENCH_INGEST_WARMUP ?? 2000);

const random = seededRandom(7);
const vocabulary = Array.from({ length: 5000 }, (_, index) => `w${index.toString(36)}`);
/** A small text file: two or three sentences, 200–600 bytes. */
function smallText(index) {
  const sentences = 2 + Math.floor(random() * 2);
  const parts = [`Note ${index}.`];
  for (let sentence = 0; sentence < sentences; sentence += 1) {
    parts.push(`${Array.from({ length: 12 + Math.floor(random() * 20) }, () => vocabulary[Math.floor(random() * random() * vocabulary.length)]).join(' ')}.`);
  }
  return parts.join(' ');
}

/** Search p50 / p99 over the finished store: SEARCHES queries of a few store words, 8 at a time, through HTTP. */
const SEARCHES = Number(process.env.BENCH_INGEST_SEARCHES ?? 400);
/**
 * Searches run (and reported on their own) before the timed ones (BENCH_INGEST_SEARCH_WARMUP). A gateway that has just started
 * or just ingested has not yet compiled the search path's code: measured at 100k chunks, the first
 * ~400 searches (~0.7 s) after a start held most of the slowest 1% (p99 27 ms over 6,000 searches,
 * 16 ms without them). The warm-up's own p50 / p99 are printed, so the cold start stays visible.
 */
const SEARCH_WARMUP = Number(process.env.BENCH_INGEST_SEARCH_WARMUP ?? 1000);

/** The warm-up, then the timed searches: { warmup, ...timed }. */
async function searchLatency(origin, key, storeId, pid) {
  const warmup = SEARCH_WARMUP > 0 ? await timedSearches(origin, key, storeId, pid, SEARCH_WARMUP, false) : null;
  return { ...(await timedSearches(origin, key, storeId, pid, SEARCHES, true)), warmup };
}

async function timedSearches(origin, key, storeId, pid, SEARCHES, traced) {
  // Each of the 8 searchers has its own keep-alive connection (lean-http.mjs): on these two cores
  // the client shares the machine with the gateway, and every ms of client CPU is taken from the
  // gateway's threads (fetch spent ~0.5 ms per request, undici's Pool 0.2–0.45 ms).
  const connections = await Promise.all(Array.from({ length: 8 }, () => leanConnection(origin)));
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const times = [];
  const cpuBefore = await cpuSeconds(pid);
  const threadsBefore = await threadCpuSeconds(pid);
  const clientBefore = process.cpuUsage();
  const begin = performance.now();
  let next = 0;
  // BENCH_INGEST_TRACE=FILE writes each search's start (ms into the run), latency and query: whether slow ones cluster in time.
  const trace = process.env.BENCH_INGEST_TRACE === undefined || !traced ? undefined : [];
  const worker = async (connection) => {
    while (next < SEARCHES) {
      next += 1;
      const query = Array.from({ length: 3 }, () => vocabulary[Math.floor(random() * random() * vocabulary.length)]).join(' ');
      const started = performance.now();
      const response = await connection.request('POST', `/v1/vector_stores/${storeId}/search`, headers, JSON.stringify({ query, max_num_results: 10 }));
      const page = JSON.parse(response.body.toString('utf8'));
      if (response.status !== 200 || page.data.length === 0) throw new Error(`search: ${response.status} ${JSON.stringify(page).slice(0, 300)}`);
      times.push(performance.now() - started);
      trace?.push(`${(started - begin).toFixed(2)} ${(performance.now() - started).toFixed(2)} ${query}`);
    }
  };
  await Promise.all(connections.map(worker));
  if (trace !== undefined) await writeFile(process.env.BENCH_INGEST_TRACE, `${trace.join('\n')}\n`);
  for (const connection of connections) connection.close();
  const seconds = (performance.now() - begin) / 1000;
  const cpuMs = ((await cpuSeconds(pid)) - cpuBefore) * 1000;
  const client = process.cpuUsage(clientBefore);
  const threadsAfter = await threadCpuSeconds(pid);
  const spentBy = (thread) => ((threadsAfter.get(thread) ?? 0) - (threadsBefore.get(thread) ?? 0)) * 1000;
  const loopCpuMs = spentBy(String(pid));
  // The index thread is the busiest of the others during searches (each walk runs there; GC helpers and the thread pool idle).
  const indexCpuMs = Math.max(0, ...[...threadsAfter.keys()].filter((thread) => thread !== String(pid)).map(spentBy));
  times.sort((left, right) => left - right);
  return {
    p50: times[Math.floor(times.length * 0.5)],
    p99: times[Math.min(times.length - 1, Math.floor(times.length * 0.99))],
    // The gateway's CPU per search (HTTP, auth, log line included): robust to the machine's load, unlike the latencies.
    cpu_ms: cpuMs / SEARCHES,
    // Of which the event loop's (the main thread; the HNSW walks run on the index thread): what 8 in flight queue on.
    loop_cpu_ms: loopCpuMs / SEARCHES,
    // And the index thread's (the walks): the two threads that have to fit on the cores beside this client.
    index_cpu_ms: indexCpuMs / SEARCHES,
    client_cpu_ms: (client.user + client.system) / 1000 / SEARCHES,
    per_s: SEARCHES / seconds,
    load: loadavg()[0],
  };
}

/** CPU seconds per thread of a process, by thread id. */
async function threadCpuSeconds(pid) {
  const threads = await readdir(`/proc/${pid}/task`);
  const seconds = await Promise.all(threads.map((thread) => cpuSeconds(pid, thread).catch(() => 0)));
  return new Map(threads.map((thread, index) => [thread, seconds[index]]));
}

async function peakRssMb(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(status)[1]) / 1024;
}

/** The gateway logs one line per request on stderr: pass on only warnings and errors. */
function forwardProblems(stream) {
  createInterface({ input: stream }).on('line', (line) => {
    if (!line.startsWith('{') || /"level":"(warn|error)"/.test(line)) process.stderr.write(`${line}\n`);
  });
}

function run(args, env, cwd, stderr = 'inherit', nodeArgs = []) {
  return spawn(process.execPath, [...nodeArgs, path.join(root, 'bin/igw.js'), ...args], { env, cwd, stdio: ['ignore', 'pipe', stderr] });
}

const KEEP = process.env.BENCH_INGEST_KEEP;
const REUSE = process.env.BENCH_INGEST_REUSE;

function gatewayEnv(workDir, configPath) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('IGW_')));
  env.IGW_DATA_DIR = path.join(workDir, 'data');
  env.IGW_CONFIG = configPath;
  return env;
}

async function startGateway(env, workDir) {
  // BENCH_INGEST_PROFILE=DIR writes a V8 CPU profile of the gateway there.
  const profile = process.env.BENCH_INGEST_PROFILE;
  // BENCH_INGEST_NODE_ARGS="--flag …" starts the gateway's node with those flags (A/B of V8 settings).
  const extra = (process.env.BENCH_INGEST_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const igw = run(['serve', '--port', '0'], env, workDir, 'pipe', [...extra, ...(profile === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${path.resolve(profile)}`])]);
  forwardProblems(igw.stderr);
  const origin = (await firstLine(igw)).replace('igw listening on ', '').trim();
  return { igw, origin };
}

function client(origin, key) {
  const auth = { authorization: `Bearer ${key}` };
  const json = async (method, url, body) => {
    const response = await fetch(`${origin}${url}`, { method, headers: { ...auth, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const parsed = await response.json();
    if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${JSON.stringify(parsed)}`);
    return parsed;
  };
  return { auth, json };
}

async function stopGateway(igw) {
  igw.kill('SIGTERM');
  await new Promise((resolve) => igw.once('exit', resolve));
}

/**
 * Uploads and attaches `count` small files (note indexes from `first`) the way `igw kb sync` does,
 * CONCURRENCY at a time; `onSent(n)` after each file's attach.
 */
async function sendFiles(origin, auth, json, storeId, count, first, onSent) {
  let next = 0;
  let sent = 0;
  const worker = async () => {
    while (next < count) {
      const index = first + next;
      next += 1;
      const form = new FormData();
      form.append('purpose', 'assistants');
      const text = Array.from({ length: NOTES_PER_FILE }, (_, note) => smallText(index * NOTES_PER_FILE + note)).join('\n\n');
      form.append('file', new Blob([text], { type: 'text/plain' }), `note-${index}.txt`);
      const uploaded = await fetch(`${origin}/v1/files`, { method: 'POST', headers: auth, body: form });
      const file = await uploaded.json();
      if (!uploaded.ok) throw new Error(`upload: ${uploaded.status} ${JSON.stringify(file)}`);
      const chunking = NOTES_PER_FILE === 1 ? {} : { chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 100, chunk_overlap_tokens: 0 } } };
      await json('POST', `/v1/vector_stores/${storeId}/files`, { file_id: file.id, attributes: { path: `notes/note-${index}.txt` }, ...chunking });
      sent += 1;
      onSent(sent);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

/** The store's file counts once no file is in progress. */
async function processed(json, storeId) {
  for (;;) {
    const counts = (await json('GET', `/v1/vector_stores/${storeId}`)).file_counts;
    if (counts.in_progress === 0) return counts;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Waits until the gateway spends under 5% of a core (its background work done), at most `seconds`. */
async function settle(pid, seconds) {
  for (let waited = 0; waited < seconds; waited += 1) {
    const before = await cpuSeconds(pid);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const spent = (await cpuSeconds(pid)) - before;
    if (process.env.BENCH_INGEST_DEBUG) console.error(`settle ${waited}: ${spent.toFixed(2)} s CPU`);
    if (spent < 0.05) return;
  }
}

/** Searches only, on a store kept by an earlier run (BENCH_INGEST_REUSE). */
async function searchKept(files) {
  const workDir = path.resolve(REUSE, String(files));
  const { key, storeId } = JSON.parse(await readFile(path.join(workDir, 'bench.json'), 'utf8'));
  const { igw, origin } = await startGateway(gatewayEnv(workDir, path.join(workDir, 'igw.config.json')), workDir);
  try {
    const { json } = client(origin, key);
    // The store's indexes load on first use: one search first, untimed; then the background work
    // of an opened store (the vector copy filled from the index) is let finish: until the gateway
    // spends under 5% of a core, at most a minute.
    await json('POST', `/v1/vector_stores/${storeId}/search`, { query: 'w1 w2', max_num_results: 10 });
    await settle(igw.pid, 60);
    const counts = (await json('GET', `/v1/vector_stores/${storeId}`)).file_counts;
    return { files, completed: counts.completed, failed: counts.failed, search: await searchLatency(origin, key, storeId, igw.pid), peak_rss_mb: await peakRssMb(igw.pid) };
  } finally {
    await stopGateway(igw);
  }
}

async function benchSize(files) {
  let workDir = await mkdtemp(path.join(tmpdir(), 'igw-bench-ingest-'));
  if (KEEP !== undefined) {
    await rm(workDir, { recursive: true, force: true });
    workDir = path.resolve(KEEP, String(files));
    await rm(workDir, { recursive: true, force: true });
    await mkdir(workDir, { recursive: true });
  }
  // Built-in models; only the request rate limit is lifted (the default plan allows 600/min).
  const configPath = path.join(workDir, 'igw.config.json');
  await writeFile(configPath, JSON.stringify({ plans: { developer: { benefits: ['advanced_models', 'api_usage', 'studio_access'], requests_per_minute: 100_000_000 } } }));
  const env = gatewayEnv(workDir, configPath);
  const key = await firstLine(run(['keys', 'create', '--name', 'bench', '--vault'], env, workDir, 'ignore'));
  const { igw, origin } = await startGateway(env, workDir);
  const { auth, json } = client(origin, key);
  try {
    const store = await json('POST', '/v1/vector_stores', { name: 'bench' });
    if (KEEP !== undefined) await writeFile(path.join(workDir, 'bench.json'), JSON.stringify({ key, storeId: store.id }));
    // Timed on a warm gateway, as a long-running one is: WARMUP files go into a scratch store first
    // (then deleted), so the timed files do not pay V8's tiering-up of the upload, attach and
    // indexing paths, nor this client's (at 1,000 files, measured: gateway CPU per file 6.6–8.3 ms
    // cold, 5.95 after 500 warm-up files, 4.75 after 2,000; 3.9 over 100,000); then the gateway
    // settles (what it does once after listening, the tokenizer warm-up of issue 18).
    if (WARMUP > 0) {
      const scratch = await json('POST', '/v1/vector_stores', { name: 'bench-warmup' });
      await sendFiles(origin, auth, json, scratch.id, WARMUP, files, () => undefined);
      await processed(json, scratch.id);
      await json('DELETE', `/v1/vector_stores/${scratch.id}`);
    }
    await settle(igw.pid, 30);
    const cpuBefore = await cpuSeconds(igw.pid);
    const clientCpuBefore = process.cpuUsage();
    const begin = performance.now();
    const tenth = Math.max(1, Math.floor(files / 10));
    const marks = new Map();
    await sendFiles(origin, auth, json, store.id, files, 0, (sent) => {
      if (sent === tenth || sent === files - tenth || sent === files) marks.set(sent, performance.now());
    });
    const sentSeconds = (performance.now() - begin) / 1000;
    const counts = await processed(json, store.id);
    const seconds = (performance.now() - begin) / 1000;
    const cpu = (await cpuSeconds(igw.pid)) - cpuBefore;
    const clientCpu = process.cpuUsage(clientCpuBefore);
    // Searched at rest, as the kept stores are: after the index snapshots and text image an ingestion leaves to write.
    await settle(igw.pid, 60);
    const search = await searchLatency(origin, key, store.id, igw.pid);
    const firstTenth = tenth / ((marks.get(tenth) - begin) / 1000);
    const lastTenth = tenth / ((marks.get(files) - marks.get(files - tenth)) / 1000);
    return { files, completed: counts.completed, failed: counts.failed, seconds, sent_s: sentSeconds, files_per_s: files / seconds, first_tenth: firstTenth, last_tenth: lastTenth, search, cpu_s: cpu, client_cpu_s: (clientCpu.user + clientCpu.system) / 1e6, peak_rss_mb: await peakRssMb(igw.pid) };
  } finally {
    await stopGateway(igw);
    if (KEEP === undefined) await rm(workDir, { recursive: true, force: true });
  }
}

const searchCell = (search) => `${search.p50.toFixed(1)} / ${search.p99.toFixed(1)} | ${search.per_s.toFixed(0)} | ${search.cpu_ms.toFixed(2)} | ${search.loop_cpu_ms.toFixed(2)} | ${search.index_cpu_ms.toFixed(2)} | ${search.client_cpu_ms.toFixed(2)} | ${search.load.toFixed(1)} | ${search.warmup === null ? '–' : `${search.warmup.p50.toFixed(1)} / ${search.warmup.p99.toFixed(1)}`}`;
if (REUSE !== undefined) {
  console.log(`\nSearch only, on the stores kept in ${REUSE}: 8 concurrent searches\n`);
  console.log('| files | completed | failed | gateway peak RSS MB | search p50 / p99 ms (8 concurrent) | searches/s | gateway CPU ms per search | of which event loop | of which index thread | client CPU ms per search | load average | warm-up searches before p50 / p99 ms |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const size of SIZES) {
    const result = await searchKept(size);
    console.log(`| ${result.files.toLocaleString('en')} | ${result.completed} | ${result.failed} | ${result.peak_rss_mb.toFixed(0)} | ${searchCell(result.search)} |`);
  }
  process.exit(0);
}
console.log(`\nIngestion: small text files (200–600 bytes), upload + attach by ${CONCURRENCY} workers, indexed on local-embed\n`);
console.log('| files | completed | failed | end to end s | files/s | upload+attach done at s | upload+attach files/s: first 10% | last 10% | gateway CPU ms/file | client CPU ms/file | gateway peak RSS MB | search p50 / p99 ms (8 concurrent) | searches/s | gateway CPU ms per search | of which event loop | of which index thread | client CPU ms per search | load average | warm-up searches before p50 / p99 ms |');
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const size of SIZES) {
  const result = await benchSize(size);
  console.log(
    `| ${result.files.toLocaleString('en')} | ${result.completed} | ${result.failed} | ${result.seconds.toFixed(1)} | ${result.files_per_s.toFixed(0)} | ${result.sent_s.toFixed(1)} | ` +
      `${result.first_tenth.toFixed(0)} | ${result.last_tenth.toFixed(0)} | ${((result.cpu_s * 1000) / result.files).toFixed(2)} | ${((result.client_cpu_s * 1000) / result.files).toFixed(2)} | ${result.peak_rss_mb.toFixed(0)} | ${searchCell(result.search)} |`,
  );
}
