import { mkdtemp, readFile, rm, stat, chmod, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataKeyError, loadDataKey, parseDataKey } from '../../../src/crypto/data-key.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
async function freshDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'igw-unit-datakey-'));
  dirs.push(dir);
  return dir;
}

const HEX = '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff';

describe('parseDataKey', () => {
  it.each([
    { name: 'hex', text: HEX },
    { name: 'hex with newline and spaces', text: `  ${HEX.toUpperCase()}\n` },
    { name: 'base64', text: Buffer.from(HEX, 'hex').toString('base64') },
    { name: 'base64url without padding', text: Buffer.from(HEX, 'hex').toString('base64url') },
  ])('accepts $name', ({ text }) => {
    expect(parseDataKey(text, 'test').toString('hex')).toBe(HEX);
  });

  it.each([
    { name: 'empty', text: '' },
    { name: 'short hex', text: HEX.slice(2) },
    { name: 'long hex', text: `${HEX}00` },
    { name: 'passphrase', text: 'correct horse battery staple' },
    { name: 'base64 of 31 bytes', text: Buffer.alloc(31, 7).toString('base64') },
  ])('refuses $name with a message naming the source', ({ text }) => {
    expect(() => parseDataKey(text, 'IGW_VAULT_KEY')).toThrow(DataKeyError);
    expect(() => parseDataKey(text, 'IGW_VAULT_KEY')).toThrow(/IGW_VAULT_KEY/);
  });
});

describe('loadDataKey', () => {
  it('creates <dataDir>/vault.key with mode 0600 on first use and returns the same key afterwards', async () => {
    const dir = await freshDir();
    const first = await loadDataKey(dir, {});
    expect(first).toHaveLength(32);
    const info = await stat(path.join(dir, 'vault.key'));
    expect(info.mode & 0o777).toBe(0o600);
    expect((await readFile(path.join(dir, 'vault.key'), 'utf8')).trim()).toBe(first.toString('hex'));
    expect((await loadDataKey(dir, {})).equals(first)).toBe(true);
  });

  it('agrees on one key when many callers create it at once', async () => {
    const dir = await freshDir();
    const keys = await Promise.all(Array.from({ length: 8 }, () => loadDataKey(dir, {})));
    for (const key of keys) expect(key.equals(keys[0]!)).toBe(true);
    const leftovers = (await import('node:fs/promises')).readdir(dir);
    expect((await leftovers).sort()).toEqual(['vault.check', 'vault.key']);
  });

  it('prefers IGW_VAULT_KEY and writes no key file then', async () => {
    const dir = await freshDir();
    const key = await loadDataKey(dir, { IGW_VAULT_KEY: HEX });
    expect(key.toString('hex')).toBe(HEX);
    await expect(stat(path.join(dir, 'vault.key'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await loadDataKey(dir, { IGW_VAULT_KEY: Buffer.from(HEX, 'hex').toString('base64') })).toString('hex')).toBe(HEX);
  });

  it('refuses an IGW_VAULT_KEY too short to be a passphrase', async () => {
    const dir = await freshDir();
    await expect(loadDataKey(dir, { IGW_VAULT_KEY: 'short' })).rejects.toThrow(DataKeyError);
  });

  it('stretches a passphrase IGW_VAULT_KEY with scrypt, the same key every time', async () => {
    const first = await loadDataKey(await freshDir(), { IGW_VAULT_KEY: 'a long passphrase' });
    const second = await loadDataKey(await freshDir(), { IGW_VAULT_KEY: 'a long passphrase' });
    expect(first).toHaveLength(32);
    expect(first.equals(second)).toBe(true);
    expect(first.equals(await loadDataKey(await freshDir(), { IGW_VAULT_KEY: 'another passphrase' }))).toBe(false);
  });

  it('refuses a key other than the one the data dir was first used with (vault.check)', async () => {
    const dir = await freshDir();
    await loadDataKey(dir, {});
    expect((await stat(path.join(dir, 'vault.check'))).mode & 0o777).toBe(0o600);
    await expect(loadDataKey(dir, { IGW_VAULT_KEY: HEX })).rejects.toThrow(/unset IGW_VAULT_KEY/);
    const envDir = await freshDir();
    await loadDataKey(envDir, { IGW_VAULT_KEY: HEX });
    await expect(loadDataKey(envDir, {})).rejects.toThrow(/set IGW_VAULT_KEY to the key it was used with/);
    expect((await loadDataKey(envDir, { IGW_VAULT_KEY: HEX })).toString('hex')).toBe(HEX);
  });

  it('refuses a corrupt key file and tightens loose permissions of a good one', async () => {
    const dir = await freshDir();
    const keyPath = path.join(dir, 'vault.key');
    await writeFile(keyPath, 'garbage\n', { mode: 0o600 });
    await expect(loadDataKey(dir, {})).rejects.toThrow(/vault\.key/);
    await writeFile(keyPath, `${HEX}\n`);
    await chmod(keyPath, 0o644);
    expect((await loadDataKey(dir, {})).toString('hex')).toBe(HEX);
    expect((await stat(keyPath)).mode & 0o777).toBe(0o600);
  });
});
