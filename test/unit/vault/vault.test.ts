import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Vault, VaultError } from '../../../src/vault/vault.js';

/** The per-account vault: scrypt-derived key, AES-256-GCM records bound to account, kind and id. */
const CHEAP = { N: 2 ** 10, r: 8, p: 1 };
let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'igw-vault-'));
});
afterEach(async () => rm(dataDir, { recursive: true, force: true }));

async function reasonOf(run: Promise<unknown>): Promise<string> {
  const error = await run.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(VaultError);
  return (error as VaultError).reason;
}

describe('Vault', () => {
  it('round trip, persisted, readable by a fresh instance with the same key only', async () => {
    const vault = new Vault(dataDir, CHEAP);
    const opened = await vault.unlock('acme', 'passphrase one', { create: true });
    const item = await opened.put('blueprint', { name: 'b', system: 'secret prompt' });
    await opened.put('skill', { name: 's', instructions: 'x' });
    const again = new Vault(dataDir, CHEAP);
    const reopened = await again.unlock('acme', 'passphrase one');
    expect(reopened.get('blueprint', item.id)?.document).toEqual({ name: 'b', system: 'secret prompt' });
    expect(reopened.list('skill').map((entry) => (entry.document as { name: string }).name)).toEqual(['s']);
    expect(reopened.get('skill', item.id)).toBeUndefined();
    expect(await reasonOf(again.unlock('acme', 'passphrase two'))).toBe('wrong-key');
    expect(await reasonOf(again.unlock('other', 'passphrase one'))).toBe('no-vault');
  });

  it('stores nothing readable, with file mode 0600', async () => {
    const opened = await new Vault(dataDir, CHEAP).unlock('acme', 'passphrase one', { create: true });
    await opened.put('blueprint', { name: 'very-visible-name', system: 'secret prompt' });
    const [file] = await readdir(path.join(dataDir, 'vault'));
    const text = await readFile(path.join(dataDir, 'vault', file!), 'utf8');
    expect(text).not.toMatch(/very-visible-name|secret prompt|passphrase/);
    expect((await stat(path.join(dataDir, 'vault', file!))).mode & 0o777).toBe(0o600);
  });

  it('a record moved under another id or kind does not open', async () => {
    const opened = await new Vault(dataDir, CHEAP).unlock('acme', 'passphrase one', { create: true });
    const a = await opened.put('blueprint', { name: 'a' });
    await opened.put('skill', { name: 's', instructions: 'i' });
    const [file] = await readdir(path.join(dataDir, 'vault'));
    const filePath = path.join(dataDir, 'vault', file!);
    const document = JSON.parse(await readFile(filePath, 'utf8')) as { items: Array<{ id: string; kind: string }> };
    document.items[1]!.kind = 'blueprint';
    document.items[1]!.id = a.id;
    document.items.splice(0, 1);
    await writeFile(filePath, JSON.stringify(document));
    const reopened = await new Vault(dataDir, CHEAP).unlock('acme', 'passphrase one');
    expect(() => reopened.get('blueprint', a.id)).toThrow();
  });

  it('two first creations at once: one vault, the second key is then wrong', async () => {
    const vault = new Vault(dataDir, CHEAP);
    const results = await Promise.allSettled([vault.unlock('acme', 'first key!', { create: true }), vault.unlock('acme', 'second key', { create: true })]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
  });
});
