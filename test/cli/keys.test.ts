import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanupAll, igw, igwJson, makeSandbox, type Sandbox } from '../helpers/cli.js';

const KEY = /^sk-svc-[A-Za-z0-9_-]{128}$/;

interface CreatedKey {
  id: string;
  key: string;
  name: string;
  scopes: string[];
  vault_access: boolean;
  account: string;
  created_at: number;
  expires_at: number | null;
  replaces?: string;
}

interface KeyView {
  id: string;
  name: string;
  key: string;
  scopes: string[];
  vault_access: boolean;
  account: string;
  status: string;
  revoked_at: number | null;
}

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
});
afterEach(cleanupAll);

describe('igw keys create', () => {
  it('--json prints exactly the documented object with a fresh sk-svc- key', async () => {
    const before = Math.floor(Date.now() / 1000);
    const result = await igw(sandbox, ['keys', 'create', '--json']);
    expect(result.exitCode).toBe(0);
    const created = JSON.parse(result.stdout) as CreatedKey;
    expect(Object.keys(created).sort()).toEqual(['account', 'created_at', 'expires_at', 'id', 'key', 'name', 'scopes', 'vault_access']);
    expect(created.key).toMatch(KEY);
    expect(created.id).toMatch(/^key_/);
    expect(created).toMatchObject({ name: '', scopes: [], vault_access: false, account: 'default', expires_at: null });
    expect(created.created_at).toBeGreaterThanOrEqual(before - 1);
    expect(created.created_at).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 1);
    // --json: one JSON document on stdout and nothing else there.
    expect(result.stdout.trim().startsWith('{')).toBe(true);
  });

  it('honours --scopes, --vault, --name and --expires-in', async () => {
    const created = await igwJson<CreatedKey>(sandbox, ['keys', 'create', '--scopes', 'inference.chat,inference.models', '--vault', '--name', 'x', '--expires-in', '30d', '--json']);
    expect(created.key).toMatch(KEY);
    expect(created.name).toBe('x');
    expect(created.scopes).toEqual(['inference.chat', 'inference.models']);
    expect(created.vault_access).toBe(true);
    expect(created.account).toBe('default');
    expect(created.expires_at).toBe(created.created_at + 30 * 86_400);
  });

  it('refuses an unknown scope: exit 1, one stderr line with the next step, empty stdout', async () => {
    const result = await igw(sandbox, ['keys', 'create', '--scopes', 'inference.chat,bogus.scope', '--json']);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^igw: /);
    expect(lines[0]).toContain('bogus.scope');
    expect(lines[0]).toMatch(/use any of: .*inference\.chat/);
    expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('refuses a bad --expires-in with exit 1', async () => {
    const result = await igw(sandbox, ['keys', 'create', '--expires-in', 'soon']);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('soon');
  });

  it('without --json prints only the key on stdout (details on stderr)', async () => {
    const result = await igw(sandbox, ['keys', 'create', '--name', 'laptop']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(KEY);
    expect(result.stdout.split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/created key_\S+ for account default/);
    expect(result.stderr).not.toContain(result.stdout);
  });
});

describe('igw keys list / revoke / rotate', () => {
  it('list --json never contains a full key', async () => {
    const a = await igwJson<CreatedKey>(sandbox, ['keys', 'create', '--name', 'a', '--json']);
    const b = await igwJson<CreatedKey>(sandbox, ['keys', 'create', '--name', 'b', '--scopes', 'inference.models', '--json']);
    const result = await igw(sandbox, ['keys', 'list', '--json']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).not.toContain(a.key);
    expect(result.stdout).not.toContain(b.key);
    expect(result.stdout).not.toMatch(/sk-svc-[A-Za-z0-9_-]{20,}/);
    const list = JSON.parse(result.stdout) as KeyView[];
    expect(list.map((key) => key.id).sort()).toEqual([a.id, b.id].sort());
    for (const view of list) {
      const full = view.id === a.id ? a.key : b.key;
      expect(view.key).toMatch(/^sk-svc-.{4}….{4}$/);
      expect(view.key.endsWith(full.slice(-4))).toBe(true);
      expect(view.status).toBe('active');
    }
    expect(list.find((key) => key.id === b.id)?.scopes).toEqual(['inference.models']);
  });

  it('list (table) never contains a full key either', async () => {
    const a = await igwJson<CreatedKey>(sandbox, ['keys', 'create', '--name', 'a', '--json']);
    const result = await igw(sandbox, ['keys', 'list']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain(a.id);
    expect(result.stdout).not.toContain(a.key);
  });

  it('revoke ID marks the key revoked', async () => {
    const a = await igwJson<CreatedKey>(sandbox, ['keys', 'create', '--json']);
    const result = await igw(sandbox, ['keys', 'revoke', a.id]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`revoked ${a.id}`);
    const list = await igwJson<KeyView[]>(sandbox, ['keys', 'list', '--json']);
    expect(list).toHaveLength(1);
    expect(list[0]!.status).toBe('revoked');
    expect(list[0]!.revoked_at).not.toBeNull();
  });

  it('revoke of an unknown id exits 1 with one line pointing at keys list', async () => {
    const result = await igw(sandbox, ['keys', 'revoke', 'key_doesnotexist']);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('key_doesnotexist');
    expect(result.stderr).toContain('igw keys list');
  });

  it('revoking twice exits 1', async () => {
    const a = await igwJson<CreatedKey>(sandbox, ['keys', 'create', '--json']);
    expect((await igw(sandbox, ['keys', 'revoke', a.id])).exitCode).toBe(0);
    const again = await igw(sandbox, ['keys', 'revoke', a.id]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain('already revoked');
  });

  it('rotate ID --json revokes the old key and creates an active one with the same settings', async () => {
    const old = await igwJson<CreatedKey>(sandbox, ['keys', 'create', '--name', 'ci', '--scopes', 'inference.chat,inference.models', '--vault', '--json']);
    const rotated = await igwJson<CreatedKey>(sandbox, ['keys', 'rotate', old.id, '--json']);
    expect(rotated.id).not.toBe(old.id);
    expect(rotated.key).toMatch(KEY);
    expect(rotated.key).not.toBe(old.key);
    expect(rotated).toMatchObject({ name: 'ci', scopes: ['inference.chat', 'inference.models'], vault_access: true, account: old.account });
    const list = await igwJson<KeyView[]>(sandbox, ['keys', 'list', '--json']);
    expect(list.find((key) => key.id === old.id)?.status).toBe('revoked');
    const fresh = list.find((key) => key.id === rotated.id);
    expect(fresh?.status).toBe('active');
    expect(fresh?.scopes).toEqual(['inference.chat', 'inference.models']);
    expect(fresh?.vault_access).toBe(true);
  });

  it('rotate without --json prints only the new key on stdout', async () => {
    const old = await igwJson<CreatedKey>(sandbox, ['keys', 'create', '--json']);
    const result = await igw(sandbox, ['keys', 'rotate', old.id]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(KEY);
    expect(result.stdout).not.toBe(old.key);
    expect(result.stderr).toContain(`rotated ${old.id}`);
  });

  it('rotate of an unknown id exits 1', async () => {
    const result = await igw(sandbox, ['keys', 'rotate', 'key_nope', '--json']);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('key_nope');
  });

  it('create --account for a missing account exits 1 telling to create it', async () => {
    const result = await igw(sandbox, ['keys', 'create', '--account', 'ghost']);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('igw accounts create ghost');
  });
});
