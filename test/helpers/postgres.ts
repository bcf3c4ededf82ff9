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
  /** A new empty database (or a copy of `template`); returns its URL. */
  createDatabase(name?: string, template?: string): Promise<string>;
  /** Drops a database, closing whatever sessions are still on it. */
  dropDatabase(name: string): Promise<void>;
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

/** The test matrix's migrated template database (store-matrix-setup.ts): each gateway's database is a copy. */
export const MATRIX_TEMPLATE = 'igw_matrix_template';

export async function startPostgres(): Promise<TestPostgres> {
  const dir = await mkdtemp(path.join(tmpdir(), 'igw-pg-'));
  const user = await asServerUser();
  if (user !== null) await chown(dir, user.uid, user.gid);
  const exec = (file: string, args: string[]) => run(binary(file), args, user === null ? {} : { uid: user.uid, gid: user.gid });
  const dataDir = path.join(dir, 'data');
  await exec('initdb', ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freeLoopbackPort();
  // Room for the test matrix: every gateway of a vitest run holds a pool (10) and a change feed (1).
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400`;
  await exec('pg_ctl', ['-D', dataDir, '-l', path.join(dir, 'server.log'), '-o', options, '-w', '-t', '30', 'start']);
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    adminUrl,
    async createDatabase(name = `igw_test_${process.pid}_${++databases}`, template?: string) {
      await adminQuery(adminUrl, `CREATE DATABASE "${name}"${template === undefined ? '' : ` TEMPLATE "${template}"`}`);
      return databaseUrl(adminUrl, name);
    },
    async dropDatabase(name: string) {
      await adminQuery(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
    async stop() {
      await exec('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The URL of database `name` on the server of `adminUrl`. */
export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** One statement on the server's `postgres` database (CREATE/DROP DATABASE cannot run in a pool's transaction). */
export async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
