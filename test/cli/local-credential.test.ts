import { mkdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanupAll, igw, igwJson, listModels, makeSandbox, startServer, type RunningServer, type Sandbox } from '../helpers/cli.js';

/** DESIGN §1 "Local CLI credential": client commands on the machine that owns the data dir need no key. */

interface KeyView {
  id: string;
  name: string;
  key: string;
  status: string;
  cli: boolean;
  vault_access: boolean;
}

const FULL_KEY = /sk-svc-[A-Za-z0-9_-]{128}/;

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
});
afterEach(cleanupAll);

/** A client command with no --api-key / IGW_API_KEY, against `server`. */
function client(server: RunningServer, args: string[], env: Record<string, string> = {}) {
  return igw(sandbox, args, { env: { IGW_BASE_URL: server.url, ...env } });
}

async function storedCliKey(): Promise<{ id: string; key: string }> {
  return JSON.parse(await readFile(path.join(sandbox.dataDir, 'cli.key'), 'utf8')) as { id: string; key: string };
}

describe('the local CLI credential', () => {
  it('models, batch and kb work without a key; the key is never printed, kept 0600 in the data dir and listed as the CLI\'s', async () => {
    const server = await startServer(sandbox);
    const models = await client(server, ['models', '--json']);
    expect(models.exitCode).toBe(0);
    expect((JSON.parse(models.stdout) as { data: Array<{ id: string }> }).data.map((model) => model.id)).toContain('local-echo');
    expect(`${models.stdout}${models.stderr}`).not.toMatch(FULL_KEY);

    const file = path.join(sandbox.dataDir, 'cli.key');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const stored = await storedCliKey();
    expect((await listModels(server.url, stored.key)).status).toBe(200);

    for (const args of [['batch', 'list', '--json'], ['kb', 'list', '--json'], ['models']]) {
      const result = await client(server, args);
      expect(result.exitCode, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(`${result.stdout}${result.stderr}`).not.toMatch(FULL_KEY);
    }
    // One key for all of them.
    const keys = await igwJson<KeyView[]>(sandbox, ['keys', 'list', '--json']);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ id: stored.id, name: 'igw CLI', cli: true, status: 'active', vault_access: true });
    const table = await igw(sandbox, ['keys', 'list']);
    expect(table.stdout).toContain("igw CLI (this CLI's own key)");
    expect(table.stdout).not.toMatch(FULL_KEY);
    // Eight CLI processes one after another: on a loaded 2-core machine each start takes 1–3 s.
  }, 60_000);

  it('after keys revoke, the next command gets a fresh key by itself', async () => {
    const server = await startServer(sandbox);
    expect((await client(server, ['models'])).exitCode).toBe(0);
    const first = await storedCliKey();
    expect((await igw(sandbox, ['keys', 'revoke', first.id])).exitCode).toBe(0);
    expect((await listModels(server.url, first.key)).status).toBe(401);

    const again = await client(server, ['models', '--json']);
    expect(again.exitCode, again.stderr).toBe(0);
    const second = await storedCliKey();
    expect(second.id).not.toBe(first.id);
    const keys = await igwJson<KeyView[]>(sandbox, ['keys', 'list', '--json']);
    expect(keys.map((key) => [key.id, key.status])).toEqual([
      [first.id, 'revoked'],
      [second.id, 'active'],
    ]);
  });

  it('with no server running, the key is made directly under the data-dir lock and used once one starts', async () => {
    await mkdir(sandbox.dataDir, { mode: 0o700 });
    const offline = await igw(sandbox, ['models'], { env: { IGW_BASE_URL: 'http://127.0.0.1:9' } });
    expect(offline.exitCode).toBe(1);
    expect(offline.stderr).toContain('no gateway answers');
    const made = await storedCliKey();
    const server = await startServer(sandbox);
    expect((await client(server, ['models'])).exitCode).toBe(0);
    expect((await storedCliKey()).id).toBe(made.id);
  });

  it('a gateway on another data dir: says so instead of making keys', async () => {
    const server = await startServer(sandbox);
    const elsewhere = path.join(sandbox.root, 'other-data');
    await igw(sandbox, ['keys', 'list'], { env: { IGW_DATA_DIR: elsewhere } });
    const result = await client(server, ['models'], { IGW_DATA_DIR: elsewhere });
    expect(result.exitCode).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('runs on another data dir; pass --data-dir DIR of that gateway');
    const keys = await igwJson<KeyView[]>(sandbox, ['keys', 'list', '--json'], { env: { IGW_DATA_DIR: elsewhere } });
    expect(keys.filter((key) => key.status === 'active')).toHaveLength(1);
  });

  it('no data dir at all: a user error naming --api-key, and no data dir is made', async () => {
    const result = await igw(sandbox, ['models'], { env: { IGW_BASE_URL: 'http://127.0.0.1:9' } });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('--api-key');
    await expect(stat(sandbox.dataDir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it("the CLI's own key cannot be rotated (that would print it): revoke says what to do", async () => {
    const server = await startServer(sandbox);
    await client(server, ['models']);
    const { id } = await storedCliKey();
    const result = await igw(sandbox, ['keys', 'rotate', id]);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`igw keys revoke ${id}`);
  });
});
