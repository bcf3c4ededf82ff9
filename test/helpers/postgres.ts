import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freeLoopbackPort } from './free-port.js';

const run = promisify(execFile);

/**
 * A real PostgreSQL for one test file (issue 19 item 5: no mocks): `initdb` + `pg_ctl` in a temp
 * dir, on a free loopback port, its unix socket in the temp dir too. Durability is switched off
 * (fsync, synchronous_commit): the cluster is thrown away after the file.
 */
export interface TestPostgres {
  /** The server's `postgres` database (administration). */
  adminUrl: string;
  /** A new empty database; returns its URL. */
  createDatabase(name?: string): Promise<string>;
  stop(): Promise<void>;
}

const DEBIAN_BIN = '/usr/lib/postgresql/15/bin';

function binary(name: string): string {
  const candidate = path.join(DEBIAN_BIN, name);
  return existsSync(candidate) ? candidate : name;
}

/** initdb refuses to run as root: as root the cluster belongs to (and runs as) the `postgres` user. */
async function asServerUser(): Promise<{ uid: number; gid: number } | null> {
  if (process.getuid?.() !== 0) return null;
  const { stdout } = await run('id', ['-u', 'postgres']);
  const { stdout: gid } = await run('id', ['-g', 'postgres']);
  return { uid: Number(stdout.trim()), gid: Number(gid.trim()) };
}

let databases = 0;

export async function startPostgres(): Promise<TestPostgres> {
  const dir = await mkdtemp(path.join(tmpdir(), 'igw-pg-'));
  const user = await asServerUser();
  if (user !== null) await chown(dir, user.uid, user.gid);
  const exec = (file: string, args: string[]) => run(binary(file), args, user === null ? {} : { uid: user.uid, gid: user.gid });
  const dataDir = path.join(dir, 'data');
  await exec('initdb', ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freeLoopbackPort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
  await exec('pg_ctl', ['-D', dataDir, '-l', path.join(dir, 'server.log'), '-o', options, '-w', '-t', '30', 'start']);
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    adminUrl,
    async createDatabase(name = `igw_test_${process.pid}_${++databases}`) {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name}"`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      await exec('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
