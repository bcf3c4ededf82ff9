// The two servers team mode needs (issue 19), started for a bench run in temp dirs on free
// loopback ports and removed after it: a real PostgreSQL (initdb + pg_ctl; as root the cluster
// runs as the `postgres` user, since initdb refuses root) and a real redis-server without
// persistence. Durability is off: the data is thrown away with the run.
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/** Debian puts the server binaries outside PATH. */
function binary(name) {
  for (const version of ['17', '16', '15', '14']) {
    const candidate = `/usr/lib/postgresql/${version}/bin/${name}`;
    if (existsSync(candidate)) return candidate;
  }
  return name;
}

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts PostgreSQL with one empty database; returns its URL and stop(). */
export async function startBenchPostgres(database = 'igw_bench') {
  const dir = await mkdtemp(path.join(tmpdir(), 'igw-bench-pg-'));
  let owner = {};
  if (process.getuid?.() === 0) {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
    await chown(dir, uid, gid);
    owner = { uid, gid };
  }
  const dataDir = path.join(dir, 'data');
  await run(binary('initdb'), ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C'], owner);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
  await run(binary('pg_ctl'), ['-D', dataDir, '-l', path.join(dir, 'server.log'), '-o', options, '-w', '-t', '60', 'start'], owner);
  const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${database}"`);
  await admin.end();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/${database}`,
    async stop() {
      await run(binary('pg_ctl'), ['-D', dataDir, '-m', 'immediate', '-w', 'stop'], owner).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Starts redis-server; returns its URL and stop(). */
export async function startBenchRedis() {
  const dir = await mkdtemp(path.join(tmpdir(), 'igw-bench-redis-'));
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve, reject) => {
    let output = '';
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
    child.stdout.on('data', (part) => {
      output += part;
      if (output.includes('Ready to accept connections')) resolve();
    });
  });
  child.removeAllListeners('exit');
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
