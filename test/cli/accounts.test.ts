import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanupAll, igw, igwJson, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { MATRIX_STORE } from '../helpers/store-matrix.js';

/** What the store keeps of the keys, as text: keys.json, or in the postgres project the igw_keys rows. */
async function storedKeys(sandbox: Sandbox): Promise<string> {
  if (MATRIX_STORE === 'json') return readFile(path.join(sandbox.dataDir, 'keys.json'), 'utf8');
  const { store } = JSON.parse(await readFile(path.join(sandbox.home, '.config', 'igw', 'config.json'), 'utf8')) as { store: { url: string } };
  const client = new pg.Client({ connectionString: store.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ text: string }>('SELECT json_agg(k)::text AS text FROM igw_keys k');
    return rows[0]!.text;
  } finally {
    await client.end();
  }
}

interface AccountView {
  id: string;
  plan: string;
  energy: string;
  credits: string;
  created_at: number;
}

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
});
afterEach(cleanupAll);

describe('igw accounts', () => {
  it('create ID --plan free, then list --json shows it with unlimited balances', async () => {
    const created = await igw(sandbox, ['accounts', 'create', 'team', '--plan', 'free']);
    expect(created.exitCode).toBe(0);
    expect(created.stdout).toBe('');
    expect(created.stderr).toContain('created account team on plan free');
    const list = await igw(sandbox, ['accounts', 'list', '--json']);
    expect(list.exitCode).toBe(0);
    const accounts = JSON.parse(list.stdout) as AccountView[];
    expect(accounts).toHaveLength(1);
    expect(accounts[0]).toMatchObject({ id: 'team', plan: 'free', energy: 'unlimited', credits: 'unlimited' });
    expect(typeof accounts[0]!.created_at).toBe('number');
  });

  it('create without --plan uses the default plan; keys create makes "default"', async () => {
    await igwJson(sandbox, ['keys', 'create', '--json']);
    expect((await igw(sandbox, ['accounts', 'create', 'other'])).exitCode).toBe(0);
    const accounts = await igwJson<AccountView[]>(sandbox, ['accounts', 'list', '--json']);
    expect(accounts.map((account) => [account.id, account.plan]).sort()).toEqual([
      ['default', 'developer'],
      ['other', 'developer'],
    ]);
  });

  it('create --json prints the account', async () => {
    const account = await igwJson<AccountView>(sandbox, ['accounts', 'create', 'team', '--plan', 'free', '--json']);
    expect(account).toMatchObject({ id: 'team', plan: 'free', energy: 'unlimited', credits: 'unlimited' });
  });

  it('creating an existing account exits 1', async () => {
    expect((await igw(sandbox, ['accounts', 'create', 'team'])).exitCode).toBe(0);
    const again = await igw(sandbox, ['accounts', 'create', 'team']);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain('already exists');
  });

  it('set ID --energy 10 --credits 2.5 --json prints the new balances', async () => {
    await igw(sandbox, ['accounts', 'create', 'team', '--plan', 'free']);
    const result = await igw(sandbox, ['accounts', 'set', 'team', '--energy', '10', '--credits', '2.5', '--json']);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toMatchObject({ id: 'team', plan: 'free', energy: '10', credits: '2.5' });
    const accounts = await igwJson<AccountView[]>(sandbox, ['accounts', 'list', '--json']);
    expect(accounts[0]).toMatchObject({ energy: '10', credits: '2.5' });
  });

  it('set --energy unlimited restores an unlimited balance', async () => {
    await igw(sandbox, ['accounts', 'create', 'team']);
    await igwJson(sandbox, ['accounts', 'set', 'team', '--energy', '10', '--json']);
    const account = await igwJson<AccountView>(sandbox, ['accounts', 'set', 'team', '--energy', 'unlimited', '--json']);
    expect(account.energy).toBe('unlimited');
    expect(account.credits).toBe('unlimited');
  });

  it('set --plan changes the plan', async () => {
    await igw(sandbox, ['accounts', 'create', 'team', '--plan', 'free']);
    const account = await igwJson<AccountView>(sandbox, ['accounts', 'set', 'team', '--plan', 'developer', '--json']);
    expect(account.plan).toBe('developer');
  });

  it('an invalid plan exits 1 naming the plans to use (create and set)', async () => {
    const create = await igw(sandbox, ['accounts', 'create', 'team', '--plan', 'platinum']);
    expect(create.exitCode).toBe(1);
    expect(create.stdout).toBe('');
    expect(create.stderr.trim().split('\n')).toHaveLength(1);
    expect(create.stderr).toContain('platinum');
    expect(create.stderr).toMatch(/developer/);
    await igw(sandbox, ['accounts', 'create', 'team']);
    const set = await igw(sandbox, ['accounts', 'set', 'team', '--plan', 'platinum', '--json']);
    expect(set.exitCode).toBe(1);
    expect(set.stdout).toBe('');
    // Nothing changed.
    const accounts = await igwJson<AccountView[]>(sandbox, ['accounts', 'list', '--json']);
    expect(accounts[0]!.plan).toBe('developer');
  });

  it.each([['1.2.3'], ['ten'], ['1e5'], ['']])('a bad decimal %j exits 1', async (value) => {
    await igw(sandbox, ['accounts', 'create', 'team']);
    const result = await igw(sandbox, ['accounts', 'set', 'team', '--credits', value, '--json']);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/--credits/);
    const accounts = await igwJson<AccountView[]>(sandbox, ['accounts', 'list', '--json']);
    expect(accounts[0]!.credits).toBe('unlimited');
  });

  it('set on an unknown account exits 1 telling to create it', async () => {
    const result = await igw(sandbox, ['accounts', 'set', 'ghost', '--energy', '1']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('igw accounts create ghost');
  });

  it('set with nothing to change exits 1', async () => {
    await igw(sandbox, ['accounts', 'create', 'team']);
    const result = await igw(sandbox, ['accounts', 'set', 'team']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('nothing to change');
  });

  it('an invalid account id exits 1', async () => {
    const result = await igw(sandbox, ['accounts', 'create', '../evil']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('invalid account id');
  });
});

describe('data dir permissions', () => {
  it('creates the data dir 0700 and keys.json / accounts.json 0600', async () => {
    await igwJson(sandbox, ['keys', 'create', '--json']);
    await igw(sandbox, ['accounts', 'create', 'team']);
    const mode = async (file: string) => (await stat(file)).mode & 0o777;
    expect(await mode(sandbox.dataDir)).toBe(0o700);
    // In the postgres project keys and accounts are rows of the database, not files.
    if (MATRIX_STORE === 'json') {
      expect(await mode(path.join(sandbox.dataDir, 'keys.json'))).toBe(0o600);
      expect(await mode(path.join(sandbox.dataDir, 'accounts.json'))).toBe(0o600);
    }
    expect(await mode(path.join(sandbox.dataDir, 'logs'))).toBe(0o700);
  });

  it('stores only a hash of the key, never the key itself', async () => {
    const created = await igwJson<{ key: string }>(sandbox, ['keys', 'create', '--json']);
    const text = await storedKeys(sandbox);
    expect(text).toContain('"hash"');
    expect(text).not.toContain(created.key);
    expect(text).not.toContain(created.key.slice(7, 40));
  });

  it('leaves no lock file behind after a direct (serverless) command', async () => {
    await igwJson(sandbox, ['keys', 'create', '--json']);
    expect(await readdir(sandbox.dataDir)).not.toContain('igw.lock');
  });
});
