// npm run bench (team batch part, issue 19 item 6): a 1,000-row batch run by two `igw serve`
// instances on one PostgreSQL; one of them is SIGKILLed mid-batch while it holds row leases. The
// other takes the dead instance's rows once their lease runs out and finishes the batch. Reported:
// rows lost (must be 0), rows duplicated in the output (must be 0), time to finish, and how long
// after the kill. Everything runs on loopback: a real PostgreSQL in a temp dir, the bench fake upstream.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { firstLine } from './process.mjs';
import { startBenchPostgres } from './team-servers.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROWS = Number(process.env.BENCH_TEAM_BATCH_ROWS ?? 1000);
const LEASE_SECONDS = Number(process.env.BENCH_TEAM_BATCH_LEASE_SECONDS ?? 5);
const CONCURRENCY = 8;
/** The kill comes once this share of the rows is done. */
const KILL_AT = 0.3;

const postgres = await startBenchPostgres('igw_team_batch');
const upstream = spawn(process.execPath, [path.join(root, 'bench/fake-upstream.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
const upstreamOrigin = `http://127.0.0.1:${Number(await firstLine(upstream))}`;
const workDir = await mkdtemp(path.join(tmpdir(), 'igw-bench-team-batch-'));
const configPath = path.join(workDir, 'igw.config.json');
await writeFile(
  configPath,
  JSON.stringify({
    store: { kind: 'postgres', url: postgres.url },
    batches: { concurrency: CONCURRENCY, lease_seconds: LEASE_SECONDS },
    providers: { bench: { kind: 'openai', base_url: `${upstreamOrigin}/v1`, api_key: 'bench' } },
    models: { 'bench-model': { type: 'chat', context_length: 128000, routes: [{ provider: 'bench', upstream_model: 'bench-model' }] } },
  }),
);
// Every instance of a team runs with the same data key (rows and output lines are sealed under it).
const envOf = (name) => ({ ...process.env, IGW_DATA_DIR: path.join(workDir, name), IGW_CONFIG: configPath, IGW_DATA_KEY: 'bench-team-batch-data-key-long-enough' });
const igwBin = path.join(root, 'bin/igw.js');
const key = await firstLine(spawn(process.execPath, [igwBin, 'keys', 'create', '--name', 'bench'], { env: envOf('a'), stdio: ['ignore', 'pipe', 'ignore'] }));
const serve = async (name) => {
  const child = spawn(process.execPath, [igwBin, 'serve', '--port', '0', '--no-tui'], { env: envOf(name), stdio: ['ignore', 'pipe', 'ignore'] });
  return { child, origin: (await firstLine(child)).replace('igw listening on ', '') };
};
const a = await serve('a');
const b = await serve('b');
const auth = { authorization: `Bearer ${key}` };

async function api(origin, method, pathName, body) {
  const json = body !== undefined && !(body instanceof FormData);
  const response = await fetch(`${origin}${pathName}`, { method, headers: { ...auth, ...(json ? { 'content-type': 'application/json' } : {}) }, body: json ? JSON.stringify(body) : body });
  if (!response.ok) throw new Error(`${method} ${pathName}: ${response.status} ${await response.text()}`);
  return response;
}

const db = new pg.Client({ connectionString: postgres.url });
let result;
try {
  await db.connect();
  const lines = Array.from({ length: ROWS }, (_, index) => JSON.stringify({ custom_id: `r${index}`, method: 'POST', url: '/v1/chat/completions', body: { model: 'bench-model', messages: [{ role: 'user', content: `row ${index}` }] } }));
  const form = new FormData();
  form.append('purpose', 'batch');
  form.append('file', new Blob([`${lines.join('\n')}\n`]), 'team.jsonl');
  const inputFileId = (await (await api(a.origin, 'POST', '/v1/files', form)).json()).id;

  const started = performance.now();
  const batch = await (await api(a.origin, 'POST', '/v1/batches', { input_file_id: inputFileId, endpoint: '/v1/chat/completions', completion_window: '24h' })).json();
  // SIGKILL A once KILL_AT of the rows are done and A holds leases on rows not done yet.
  let heldByA = 0;
  let doneAtKill = 0;
  for (;;) {
    const { rows } = await db.query(`SELECT count(*) FILTER (WHERE done) AS done, count(*) FILTER (WHERE NOT done AND lease_owner LIKE $1) AS held FROM igw_batch_rows`, [`%:${a.child.pid}:%`]);
    doneAtKill = Number(rows[0].done);
    heldByA = Number(rows[0].held);
    if ((doneAtKill >= ROWS * KILL_AT && heldByA > 0) || doneAtKill === ROWS) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  a.child.kill('SIGKILL');
  const killedAt = performance.now();

  let record;
  do {
    await new Promise((resolve) => setTimeout(resolve, 50));
    record = await (await api(b.origin, 'GET', `/v1/batches/${batch.id}`)).json();
  } while (!['succeeded', 'failed', 'expired', 'cancelled'].includes(record.status));
  const finished = performance.now();

  const output = record.output_file_id === null ? '' : await (await api(b.origin, 'GET', `/v1/files/${record.output_file_id}/content`)).text();
  const ids = output.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line).custom_id);
  const unique = new Set(ids);
  result = {
    status: record.status,
    lost: ROWS - unique.size,
    duplicated: ids.length - unique.size,
    doneAtKill,
    heldByA,
    seconds: (finished - started) / 1000,
    afterKill: (finished - killedAt) / 1000,
  };
} finally {
  await db.end().catch(() => undefined);
  for (const child of [a.child, b.child, upstream]) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  await Promise.all([a.child, b.child].map((child) => (child.exitCode === null && child.signalCode === null ? new Promise((resolve) => child.once('exit', resolve)) : undefined)));
  await postgres.stop();
  await rm(workDir, { recursive: true, force: true });
}

console.log(`\nigw team batch bench: ${ROWS} rows, two instances on one PostgreSQL, batches.concurrency ${CONCURRENCY} each, lease ${LEASE_SECONDS} s, node ${process.version}\n`);
console.log('| status | rows lost | rows duplicated | rows done at the SIGKILL | rows leased by the killed instance | time to finish s | after the kill s |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
console.log(`| ${result.status} | ${result.lost} | ${result.duplicated} | ${result.doneAtKill} | ${result.heldByA} | ${result.seconds.toFixed(1)} | ${result.afterKill.toFixed(1)} |`);
if (result.lost !== 0 || result.duplicated !== 0 || result.status !== 'succeeded') process.exitCode = 1;
