import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chat, cleanupAll, igw, igwJson, makeSandbox, startServer, type Sandbox } from '../helpers/cli.js';

/** `igw keys rotate ID [--grace 24h] [--json]` (DESIGN §1): rolling keys without downtime. */

interface Rotated {
  id: string;
  key: string;
  replaces: string;
  created_at: number;
  old_key_valid_until: number;
}

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
});
afterEach(cleanupAll);

describe('igw keys rotate --grace', () => {
  it('keeps the old key working for the grace period, on a running server', async () => {
    const server = await startServer(sandbox);
    const old = await igwJson<{ id: string; key: string }>(sandbox, ['keys', 'create', '--name', 'app', '--json']);
    const rotated = await igwJson<Rotated>(sandbox, ['keys', 'rotate', old.id, '--grace', '24h', '--json']);
    expect(rotated.replaces).toBe(old.id);
    expect(rotated.old_key_valid_until).toBe(rotated.created_at + 86_400);
    expect((await chat(server.url, old.key)).status).toBe(200);
    expect((await chat(server.url, rotated.key)).status).toBe(200);
    const list = await igwJson<Array<{ id: string; status: string; expires_at: number | null }>>(sandbox, ['keys', 'list', '--json']);
    expect(list.find((key) => key.id === old.id)).toMatchObject({ status: 'active', expires_at: rotated.old_key_valid_until });
  });

  it('the old key stops once the grace period ends', async () => {
    const server = await startServer(sandbox);
    const old = await igwJson<{ id: string; key: string }>(sandbox, ['keys', 'create', '--json']);
    await igwJson<Rotated>(sandbox, ['keys', 'rotate', old.id, '--grace', '1s', '--json']);
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const refused = await chat(server.url, old.key);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('AUTH_1008');
  });

  it('without --grace the old key stops at once (grace 0), and plain output says which', async () => {
    const server = await startServer(sandbox);
    const old = await igwJson<{ id: string; key: string }>(sandbox, ['keys', 'create', '--json']);
    const result = await igw(sandbox, ['keys', 'rotate', old.id]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain(`${old.id} stopped working`);
    expect((await chat(server.url, old.key)).status).toBe(401);
    expect((await chat(server.url, result.stdout.trim())).status).toBe(200);
  });

  it('a grace period is also honoured with no server running; a bad one is a user error', async () => {
    const old = await igwJson<{ id: string; key: string }>(sandbox, ['keys', 'create', '--json']);
    const plain = await igw(sandbox, ['keys', 'rotate', old.id, '--grace', '90m']);
    expect(plain.stderr).toMatch(new RegExp(`${old.id} keeps working until \\d{4}-\\d{2}-\\d{2}T`));
    const server = await startServer(sandbox);
    expect((await chat(server.url, old.key)).status).toBe(200);
    const bad = await igw(sandbox, ['keys', 'rotate', old.id, '--grace', 'soon']);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain('invalid duration "soon"');
  });
});
