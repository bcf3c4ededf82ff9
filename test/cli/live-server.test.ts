import { readdir } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chat, cleanupAll, igw, igwJson, listModels, makeSandbox, startServer, type RunningServer, type Sandbox } from '../helpers/cli.js';

interface CreatedKey {
  id: string;
  key: string;
  account: string;
  scopes: string[];
}

let sandbox: Sandbox;
let server: RunningServer;
beforeEach(async () => {
  sandbox = await makeSandbox();
  server = await startServer(sandbox);
});
afterEach(cleanupAll);

describe('admin commands against a running server', () => {
  it('keys create goes through the admin socket and the key works at once', async () => {
    const result = await igw(sandbox, ['keys', 'create', '--name', 'live', '--json']);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe('');
    const created = JSON.parse(result.stdout) as CreatedKey;
    // The server holds the lock, so a direct write would have been refused: this went over the socket.
    expect(await readdir(sandbox.dataDir)).toContain('igw.lock');
    const models = await listModels(server.url, created.key);
    expect(models.status).toBe(200);
    expect(models.body.object).toBe('list');
    expect(models.body.data.map((model: { id: string }) => model.id)).toContain('local-echo');
  });

  it('plain keys create prints only the key, which works at once', async () => {
    const result = await igw(sandbox, ['keys', 'create']);
    expect(result.exitCode).toBe(0);
    const key = result.stdout;
    expect(key).toMatch(/^sk-svc-[A-Za-z0-9_-]{128}$/);
    expect((await chat(server.url, key)).status).toBe(200);
  });

  it('keys revoke makes the key 401 AUTH_1008 at once', async () => {
    const created = await igwJson<CreatedKey>(sandbox, ['keys', 'create', '--json']);
    expect((await listModels(server.url, created.key)).status).toBe(200);
    const revoke = await igw(sandbox, ['keys', 'revoke', created.id]);
    expect(revoke.exitCode).toBe(0);
    const after = await listModels(server.url, created.key);
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('AUTH_1008');
  });

  it('keys rotate: the old key is refused and the new one accepted at once', async () => {
    const old = await igwJson<CreatedKey>(sandbox, ['keys', 'create', '--scopes', 'inference.models', '--json']);
    const rotated = await igwJson<CreatedKey>(sandbox, ['keys', 'rotate', old.id, '--json']);
    expect(rotated.scopes).toEqual(['inference.models']);
    expect((await listModels(server.url, old.key)).body.error.code).toBe('AUTH_1008');
    expect((await listModels(server.url, rotated.key)).status).toBe(200);
  });

  it('keys list and revoke errors work through the socket too', async () => {
    const created = await igwJson<CreatedKey>(sandbox, ['keys', 'create', '--json']);
    const list = await igw(sandbox, ['keys', 'list', '--json']);
    expect(list.exitCode).toBe(0);
    expect(list.stdout).not.toContain(created.key);
    expect(JSON.parse(list.stdout)).toHaveLength(1);
    const unknown = await igw(sandbox, ['keys', 'revoke', 'key_unknown']);
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
    expect(unknown.stderr).toContain('key_unknown');
    const scope = await igw(sandbox, ['keys', 'create', '--scopes', 'nope']);
    expect(scope.exitCode).toBe(1);
    expect(scope.stderr).toContain('unknown scope');
  });

  it('a scoped key created live is limited to its scopes', async () => {
    const created = await igwJson<CreatedKey>(sandbox, ['keys', 'create', '--scopes', 'inference.models', '--json']);
    expect((await listModels(server.url, created.key)).status).toBe(200);
    const refused = await chat(server.url, created.key);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('AUTH_1015');
  });

  it('accounts set ACCOUNT --credits 0 --energy 0 makes the next chat 402 BILLING_2001', async () => {
    const created = await igwJson<CreatedKey>(sandbox, ['keys', 'create', '--json']);
    expect((await chat(server.url, created.key)).status).toBe(200);
    const set = await igw(sandbox, ['accounts', 'set', created.account, '--credits', '0', '--energy', '0', '--json']);
    expect(set.exitCode).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ id: 'default', energy: '0', credits: '0' });
    const refused = await chat(server.url, created.key);
    expect(refused.status).toBe(402);
    expect(refused.body.error.code).toBe('BILLING_2001');
    // Topping up works at once as well.
    expect((await igw(sandbox, ['accounts', 'set', created.account, '--energy', 'unlimited'])).exitCode).toBe(0);
    expect((await chat(server.url, created.key)).status).toBe(200);
  });

  it('accounts create / list go through the socket and a key for the new account works', async () => {
    expect((await igw(sandbox, ['accounts', 'create', 'team', '--plan', 'free'])).exitCode).toBe(0);
    const accounts = await igwJson<Array<{ id: string; plan: string }>>(sandbox, ['accounts', 'list', '--json']);
    expect(accounts.find((account) => account.id === 'team')?.plan).toBe('free');
    const created = await igwJson<CreatedKey>(sandbox, ['keys', 'create', '--account', 'team', '--json']);
    expect(created.account).toBe('team');
    expect((await listModels(server.url, created.key)).status).toBe(200);
    const invalid = await igw(sandbox, ['accounts', 'set', 'team', '--credits', 'lots']);
    expect(invalid.exitCode).toBe(1);
    expect(invalid.stderr).toContain('--credits');
  });

  it('admin changes made live survive a restart', async () => {
    const created = await igwJson<CreatedKey>(sandbox, ['keys', 'create', '--json']);
    await igwJson(sandbox, ['accounts', 'set', 'default', '--credits', '3.25', '--json']);
    expect((await server.stop()).exitCode).toBe(0);
    const accounts = await igwJson<Array<{ id: string; credits: string }>>(sandbox, ['accounts', 'list', '--json']);
    expect(accounts.find((account) => account.id === 'default')?.credits).toBe('3.25');
    const again = await startServer(sandbox);
    expect((await listModels(again.url, created.key)).status).toBe(200);
  });
});
