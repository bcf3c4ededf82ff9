// npm run bench, team mode (issue 19 item 6): two `igw serve` instances on one PostgreSQL and one
// Redis against one instance, same fake upstream, same load; then the correctness figures across
// the two instances: a key's per-minute limit holds exactly, and balances under 64 concurrent
// paid requests end no lower than DESIGN §2 allows (admitted while positive: at worst every
// request in flight overshoots by its cost). Real servers in temp dirs, all on loopback.
import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { Pool } from 'undici';
import { prepareGateway, root, SCENARIOS, startFakeUpstream } from './gateway-setup.mjs';
import { firstLine } from './process.mjs';
import { startBenchPostgres, startBenchRedis } from './team-servers.mjs';

const DURATION_MS = Number(process.env.BENCH_SECONDS ?? 3) * 1000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_TEAM_CONNECTIONS ?? 32);
/** The per-minute limit of the rate-limit check; 3x as many requests are sent. */
const LIMIT = 50;
/** Paid requests sent at once in the balance check (issue 19: 64 concurrent debits). */
const CONCURRENT_DEBITS = 64;
// Team mode seals with one data key given to every instance (DESIGN §4); every igw process below
// inherits it.
process.env.IGW_DATA_KEY ??= 'a1'.repeat(32);

const loadAverage = async () => (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function igw(args, env, stderr = 'inherit') {
  return spawn(process.execPath, [path.join(root, 'bin/igw.js'), ...args], { env, stdio: ['ignore', 'pipe', stderr] });
}

/** Runs an igw admin command to its end; returns stdout. */
async function igwCommand(args, env) {
  const child = igw(args, env);
  let out = '';
  child.stdout.on('data', (part) => (out += part));
  const code = await new Promise((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`igw ${args.join(' ')} exited with ${code}`);
  return out.trim();
}

async function serve(env, dataDir) {
  // The servers' own log lines (start, team-mode notice, stop) would bury the tables.
  const child = igw(['serve', '--port', '0'], { ...env, IGW_DATA_DIR: dataDir }, 'ignore');
  const origin = (await firstLine(child)).replace('igw listening on ', '');
  return { child, origin };
}

/** Chat non-stream for DURATION_MS, `connections` split evenly over `origins`; req/s over all. */
async function throughput(origins, key) {
  const { pathName, body } = SCENARIOS.chat;
  const pools = origins.map((origin) => new Pool(origin, { connections: Math.ceil(CONNECTIONS / origins.length), pipelining: 1 }));
  const request = (pool) => pool.request({ method: 'POST', path: pathName, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body });
  for (const pool of pools) for (let index = 0; index < 20; index += 1) await request(pool).then((response) => response.body.dump());
  const latencies = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + DURATION_MS;
  const worker = async (pool) => {
    while (performance.now() < deadline) {
      const begin = performance.now();
      try {
        const response = await request(pool);
        await response.body.dump();
        if (response.statusCode === 200) latencies.push(performance.now() - begin);
        else errors += 1;
      } catch {
        errors += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, (_, index) => worker(pools[index % pools.length])));
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(pools.map((pool) => pool.close()));
  latencies.sort((a, b) => a - b);
  const quantile = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return { rps: latencies.length / seconds, p50: quantile(0.5), p99: quantile(0.99), errors };
}

/** `count` chat requests sent at once, alternating over `origins`; the answers' status and JSON. */
async function burst(origins, key, count) {
  const pools = origins.map((origin) => new Pool(origin, { connections: count, pipelining: 1 }));
  const answers = await Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const response = await pools[index % pools.length].request({ method: 'POST', path: SCENARIOS.chat.pathName, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: SCENARIOS.chat.body });
      return { status: response.statusCode, json: await response.body.json() };
    }),
  );
  await Promise.all(pools.map((pool) => pool.close()));
  return answers;
}

const loadBefore = await loadAverage();
const postgres = await startBenchPostgres();
const redis = await startBenchRedis();
const { upstream, upstreamOrigin } = await startFakeUpstream();
const children = [upstream];
const cleanups = [];
try {
  const team = await prepareGateway(upstreamOrigin, 'igw-bench-team-', {
    store: { kind: 'postgres', url: postgres.url },
    redis: { url: redis.url },
    plans: { limited: { benefits: ['advanced_models', 'api_usage'], requests_per_minute: LIMIT } },
  });
  cleanups.push(() => rm(team.workDir, { recursive: true, force: true }));
  const local = await prepareGateway(upstreamOrigin, 'igw-bench-json-');
  cleanups.push(() => rm(local.workDir, { recursive: true, force: true }));

  const json = await serve(local.env, local.env.IGW_DATA_DIR);
  const a = await serve(team.env, path.join(team.workDir, 'data-a'));
  const b = await serve(team.env, path.join(team.workDir, 'data-b'));
  children.push(json.child, a.child, b.child);

  // (a) Aggregate req/s: rounds interleave the three set-ups; each cell is its median round.
  const setups = [
    { name: 'JSON store, 1 instance', origins: [json.origin], key: local.key },
    { name: 'PostgreSQL + Redis, 1 instance', origins: [a.origin], key: team.key },
    { name: 'PostgreSQL + Redis, 2 instances', origins: [a.origin, b.origin], key: team.key },
  ];
  const results = new Map(setups.map((setup) => [setup.name, []]));
  for (let round = 0; round < ROUNDS; round += 1) for (const setup of setups) results.get(setup.name).push(await throughput(setup.origins, setup.key));
  const median = (values) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];

  // (b) A key's per-minute limit across both instances: 3x the limit at once, split over both.
  await igwCommand(['accounts', 'create', 'limited', '--plan', 'limited'], team.env);
  const limitedKey = await igwCommand(['keys', 'create', '--account', 'limited', '--name', 'limited'], team.env);
  await sleep(1000);
  // The window opens with the key's first request and lasts a minute (DESIGN §5): the whole burst is in one.
  const limited = await burst([a.origin, b.origin], limitedKey, 3 * LIMIT);
  const admitted = limited.filter((answer) => answer.status === 200).length;
  const refusedByLimit = limited.filter((answer) => answer.status === 429).length;

  // (c) 64 concurrent paid requests across both instances on a balance worth 16 of them.
  await igwCommand(['accounts', 'create', 'spend', '--plan', 'developer'], team.env);
  await igwCommand(['accounts', 'set', 'spend', '--energy', '1', '--credits', '0'], team.env);
  const spendKey = await igwCommand(['keys', 'create', '--account', 'spend', '--name', 'spend'], team.env);
  await sleep(1000);
  const [probe] = await burst([a.origin], spendKey, 1);
  const perRequest = Number(probe.json.billing_cost.energy);
  const start = 16 * perRequest;
  await igwCommand(['accounts', 'set', 'spend', '--energy', String(start), '--credits', '0'], team.env);
  await sleep(1000);
  const spent = await burst([a.origin, b.origin], spendKey, CONCURRENT_DEBITS);
  const paid = spent.filter((answer) => answer.status === 200);
  const refusedForBalance = spent.filter((answer) => answer.status === 402).length;
  const billed = paid.reduce((sum, answer) => sum + Number(answer.json.billing_cost.energy), 0);
  await sleep(1000);
  const client = new pg.Client({ connectionString: postgres.url });
  await client.connect();
  const { rows } = await client.query("SELECT energy::text AS energy FROM igw_accounts WHERE id = 'spend'");
  await client.end();
  const final = Number(rows[0].energy);
  const floor = -CONCURRENT_DEBITS * perRequest;

  const fixed = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
  console.log(`\nigw team bench: chat non-stream, ${CONNECTIONS} connections, ${DURATION_MS / 1000} s per cell, median of ${ROUNDS} interleaved rounds, node ${process.version}, ${(await readFile('/proc/cpuinfo', 'utf8')).match(/^processor/gm).length} cores (PostgreSQL, Redis, the fake upstream, the instances and this client share them), load average ${loadBefore} before and ${await loadAverage()} after\n`);
  console.log('| set-up | req/s | p50 ms | p99 ms | errors |');
  console.log('|---|---:|---:|---:|---:|');
  for (const setup of setups) {
    const cells = results.get(setup.name);
    console.log(`| ${setup.name} | ${fixed(median(cells.map((cell) => cell.rps)), 0)} | ${fixed(median(cells.map((cell) => cell.p50)))} | ${fixed(median(cells.map((cell) => cell.p99)))} | ${cells.reduce((sum, cell) => sum + cell.errors, 0)} |`);
  }
  console.log('\nCorrectness across the two instances:\n');
  console.log('| check | sent | admitted | refused | expected | holds |');
  console.log('|---|---:|---:|---:|---|---|');
  console.log(`| per-minute limit ${LIMIT} (Redis, one window) | ${3 * LIMIT} | ${admitted} | ${refusedByLimit} (429) | admitted = ${LIMIT} | ${admitted === LIMIT ? 'yes' : 'NO'} |`);
  const lost = start - billed - final;
  console.log(
    `| ${CONCURRENT_DEBITS} concurrent paid requests, energy ${fixed(start, 6)} (16 requests' worth) | ${CONCURRENT_DEBITS} | ${paid.length} | ${refusedForBalance} (402) | final ≥ ${fixed(floor, 6)} (−${CONCURRENT_DEBITS} in flight × ${fixed(perRequest, 6)}), no debit lost | final ${fixed(final, 6)}, lost ${fixed(Math.abs(lost), 6)}: ${final >= floor && Math.abs(lost) < 1e-9 ? 'yes' : 'NO'} |`,
  );
} finally {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  await Promise.all(children.map((child) => (child.exitCode === null ? new Promise((resolve) => child.once('exit', resolve)) : undefined)));
  for (const cleanup of cleanups) await cleanup();
  await redis.stop();
  await postgres.stop();
}
