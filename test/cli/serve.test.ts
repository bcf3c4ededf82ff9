import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanupAll, igw, igwJson, listModels, makeSandbox, startServer, type Sandbox } from '../helpers/cli.js';

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
});
afterEach(cleanupAll);

describe('igw serve', () => {
  it('prints exactly one stdout line, answers HTTP, logs only JSON on stderr, exits 0 on SIGTERM and cleans up', async () => {
    const server = await startServer(sandbox);
    expect(server.port).toBeGreaterThan(0);
    const files = await readdir(sandbox.dataDir);
    expect(files).toContain('igw.lock');
    expect(files).toContain('igw.sock');

    // It really accepts connections on the printed URL.
    const response = await fetch(`${server.url}/v1/models`);
    expect(response.status).toBe(401);
    await response.text();

    const exit = await server.stop('SIGTERM');
    expect(exit.exitCode).toBe(0);
    expect(exit.signal).toBeUndefined();
    expect(server.stdout()).toBe(`igw listening on ${server.url}\n`);
    for (const line of server.stderr().split('\n').filter((text) => text.trim() !== '')) {
      expect(() => JSON.parse(line), `stderr line is not JSON: ${line}`).not.toThrow();
      expect(JSON.parse(line)).toHaveProperty('level');
    }
    const after = await readdir(sandbox.dataDir);
    expect(after).not.toContain('igw.lock');
    expect(after).not.toContain('igw.sock');
  });

  it('exits 0 on SIGINT too', async () => {
    const server = await startServer(sandbox);
    const exit = await server.stop('SIGINT');
    expect(exit.exitCode).toBe(0);
    expect(await readdir(sandbox.dataDir)).not.toContain('igw.lock');
  });

  it('SIGTERM sent the moment the listening line arrives still exits 0 and cleans up (repeated)', async () => {
    // Scripts wait for the line and may signal at once: the handlers must be in place by then.
    // The race window is small: each attempt loses it about one time in four, so repeat.
    const ATTEMPTS = 16;
    const outcomes: string[] = [];
    for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
      const attemptBox = await makeSandbox();
      const server = await startServer(attemptBox, [], { settle: false });
      const exit = await server.stop('SIGTERM');
      const left = (await readdir(attemptBox.dataDir)).filter((name) => name === 'igw.lock' || name === 'igw.sock');
      outcomes.push(`code=${String(exit.exitCode)} signal=${String(exit.signal)} left=[${left.join(',')}]`);
      await attemptBox.cleanup();
    }
    expect(outcomes).toEqual(Array.from({ length: ATTEMPTS }, () => 'code=0 signal=undefined left=[]'));
  }, 120_000);

  it('a second serve on the same data dir exits 1 saying the data dir is in use', async () => {
    const first = await startServer(sandbox);
    const second = await igw(sandbox, ['serve', '--port', '0']);
    expect(second.exitCode).toBe(1);
    expect(second.stdout).toBe('');
    expect(second.stderr).toMatch(/data dir .* is in use/);
    expect(second.stderr).toContain(String(first.pid));
    expect(second.stderr).toContain('--data-dir');
    expect(second.stderr.trim().split('\n')).toHaveLength(1);
    // The first one is unharmed.
    expect((await fetch(`${first.url}/v1/models`)).status).toBe(401);
    expect((await first.stop()).exitCode).toBe(0);
  });

  it('a serve after a clean stop starts again on the same data dir with the same keys', async () => {
    const created = await igwJson<{ key: string }>(sandbox, ['keys', 'create', '--json']);
    const first = await startServer(sandbox);
    expect((await listModels(first.url, created.key)).status).toBe(200);
    expect((await first.stop()).exitCode).toBe(0);
    const second = await startServer(sandbox);
    expect((await listModels(second.url, created.key)).status).toBe(200);
    expect((await second.stop()).exitCode).toBe(0);
  });

  it('takes over a stale lock and socket left by a SIGKILLed server', async () => {
    const first = await startServer(sandbox);
    const killed = await first.stop('SIGKILL');
    expect(killed.signal).toBe('SIGKILL');
    expect(await readdir(sandbox.dataDir)).toContain('igw.lock');
    // Admin commands fall back to direct writes; a new server starts.
    expect((await igw(sandbox, ['keys', 'list', '--json'])).exitCode).toBe(0);
    const second = await startServer(sandbox);
    expect((await second.stop()).exitCode).toBe(0);
  });

  it('with a bad config exits 1 printing the problems and nothing on stdout', async () => {
    await writeFile(path.join(sandbox.cwd, 'igw.config.json'), JSON.stringify({ server: { port: 'eighty' }, models: { m: { type: 'chat', routes: [] } } }));
    const result = await igw(sandbox, ['serve', '--port', '0']);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('$.server.port');
    expect(result.stderr).toContain('$.models.m.routes');
    expect(result.stderr).toContain('igw config check');
    expect(result.stderr).not.toContain('internal error');
  });

  it('an invalid --port exits 1', async () => {
    const result = await igw(sandbox, ['serve', '--port', 'abc']);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('invalid port');
  });

  it('a port already in use exits 1 with a next step', async () => {
    const first = await startServer(sandbox);
    const other = await makeSandbox();
    const result = await igw(other, ['serve', '--port', String(first.port)]);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`port ${first.port} is already in use`);
    expect(result.stderr).toContain('--port');
    // The failed start released its data dir.
    expect(await readdir(other.dataDir)).not.toContain('igw.lock');
  });
});
