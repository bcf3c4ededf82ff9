import { mkdtemp, readdir, readFile, rm, stat, chmod, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataKeyError, loadDataKey, opensKeyCheck, parseDataKey, sealKeyCheck } from '../../../src/crypto/data-key.js';

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
    expect(() => parseDataKey(text, 'IGW_DATA_KEY')).toThrow(DataKeyError);
    expect(() => parseDataKey(text, 'IGW_DATA_KEY')).toThrow(/IGW_DATA_KEY/);
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

  it('prefers IGW_DATA_KEY and writes no key file then', async () => {
    const dir = await freshDir();
    const key = await loadDataKey(dir, { IGW_DATA_KEY: HEX });
    expect(key.toString('hex')).toBe(HEX);
    await expect(stat(path.join(dir, 'vault.key'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await loadDataKey(dir, { IGW_DATA_KEY: Buffer.from(HEX, 'hex').toString('base64') })).toString('hex')).toBe(HEX);
  });

  it('never takes IGW_VAULT_KEY (the blueprint vault key) as the data key', async () => {
    const dir = await freshDir();
    const fileKey = await loadDataKey(dir, {});
    // The README's blueprint section exports IGW_VAULT_KEY in the shell that later runs igw serve.
    expect((await loadDataKey(dir, { IGW_VAULT_KEY: 'a long vault passphrase' })).equals(fileKey)).toBe(true);
    expect((await loadDataKey(await freshDir(), { IGW_VAULT_KEY: HEX })).toString('hex')).not.toBe(HEX);
  });

  it('refuses an IGW_DATA_KEY too short to be a passphrase', async () => {
    const dir = await freshDir();
    await expect(loadDataKey(dir, { IGW_DATA_KEY: 'short' })).rejects.toThrow(DataKeyError);
  });

  it('stretches a passphrase IGW_DATA_KEY with scrypt, the same key every time', async () => {
    const first = await loadDataKey(await freshDir(), { IGW_DATA_KEY: 'a long passphrase' });
    const second = await loadDataKey(await freshDir(), { IGW_DATA_KEY: 'a long passphrase' });
    expect(first).toHaveLength(32);
    expect(first.equals(second)).toBe(true);
    expect(first.equals(await loadDataKey(await freshDir(), { IGW_DATA_KEY: 'another passphrase' }))).toBe(false);
  });

  it('refuses a key other than the one the data dir was first used with (vault.check)', async () => {
    const dir = await freshDir();
    await loadDataKey(dir, {});
    expect((await stat(path.join(dir, 'vault.check'))).mode & 0o777).toBe(0o600);
    await expect(loadDataKey(dir, { IGW_DATA_KEY: HEX })).rejects.toMatchObject({ nextStep: expect.stringMatching(/unset IGW_DATA_KEY/) });
    const envDir = await freshDir();
    await loadDataKey(envDir, { IGW_DATA_KEY: HEX });
    await expect(loadDataKey(envDir, {})).rejects.toMatchObject({ nextStep: expect.stringMatching(/set IGW_DATA_KEY to the key it was first started with/) });
    // No stray key file was made by the refused start: the next one with the key still opens.
    await expect(stat(path.join(envDir, 'vault.key'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await loadDataKey(envDir, { IGW_DATA_KEY: HEX })).toString('hex')).toBe(HEX);
  });

  it('a data dir first keyed through IGW_VAULT_KEY opens with the same value in IGW_DATA_KEY, with a hint once', async () => {
    const dir = await freshDir();
    const legacyKey = await loadDataKey(dir, { IGW_DATA_KEY: 'an old passphrase' });
    // What a data dir keyed through the old name looks like: no record of the variable's name.
    await rm(path.join(dir, 'data-key.source'));
    const refused = await loadDataKey(dir, { IGW_VAULT_KEY: 'an old passphrase' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DataKeyError);
    expect((refused as DataKeyError).message).toContain('IGW_VAULT_KEY');
    expect((refused as DataKeyError).nextStep).toBe('IGW_DATA_KEY is its name now: export IGW_DATA_KEY="$IGW_VAULT_KEY"');
    const hints: string[] = [];
    expect((await loadDataKey(dir, { IGW_DATA_KEY: 'an old passphrase' }, (hint) => hints.push(hint))).equals(legacyKey)).toBe(true);
    expect(hints).toHaveLength(1);
    expect(hints[0]).toMatch(/first keyed through IGW_VAULT_KEY.*IGW_DATA_KEY/);
    await loadDataKey(dir, { IGW_DATA_KEY: 'an old passphrase' }, (hint) => hints.push(hint));
    expect(hints).toHaveLength(1);
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

describe('team mode (store.kind postgres)', () => {
  it('needs IGW_DATA_KEY: no vault.key of its own', async () => {
    const dir = await freshDir();
    await expect(loadDataKey(dir, {}, undefined, { team: true })).rejects.toMatchObject({ name: 'DataKeyError', nextStep: expect.stringMatching(/IGW_DATA_KEY .*same value on every instance/) });
    await expect(loadDataKey(dir, { IGW_DATA_KEY: '  ' }, undefined, { team: true })).rejects.toThrow(/needs IGW_DATA_KEY/);
    expect((await readdir(dir)).includes('vault.key')).toBe(false);
    expect((await loadDataKey(dir, { IGW_DATA_KEY: HEX }, undefined, { team: true })).toString('hex')).toBe(HEX);
  });

  it('a data dir keyed with its own vault.key: refused with the team-mode next step (a new data dir, igw migrate)', async () => {
    const dir = await freshDir();
    await loadDataKey(dir, {});
    await expect(loadDataKey(dir, { IGW_DATA_KEY: HEX }, undefined, { team: true })).rejects.toMatchObject({ nextStep: expect.stringMatching(/new data dir.*igw migrate --from-data-dir/) });
  });

  it('the check value opens only under its key', () => {
    const key = Buffer.from(HEX, 'hex');
    const sealed = sealKeyCheck(key);
    expect(opensKeyCheck(key, sealed)).toBe(true);
    expect(opensKeyCheck(Buffer.alloc(32, 1), sealed)).toBe(false);
    expect(opensKeyCheck(key, Buffer.from('not sealed'))).toBe(false);
  });
});
