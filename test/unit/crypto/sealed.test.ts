import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { seal, SealedDataError, sealInSlices, unseal } from '../../../src/crypto/sealed.js';

const key = randomBytes(32);

describe('seal / unseal', () => {
  it.each([
    { name: 'empty', plaintext: Buffer.alloc(0), aad: undefined },
    { name: 'text', plaintext: Buffer.from('chunk text ✓'), aad: undefined },
    { name: 'with aad', plaintext: Buffer.from('bound'), aad: 'vs_123/file-9' },
    { name: '1 MiB', plaintext: randomBytes(1024 * 1024), aad: 'big' },
  ])('round-trips $name', ({ plaintext, aad }) => {
    const sealed = seal(key, plaintext, aad);
    expect(sealed.length).toBe(plaintext.length + 29);
    expect(unseal(key, sealed, aad).equals(plaintext)).toBe(true);
  });

  it('uses a fresh nonce each time (same input, different output)', () => {
    const plaintext = Buffer.from('same');
    expect(seal(key, plaintext).equals(seal(key, plaintext))).toBe(false);
  });

  it('does not contain the plaintext', () => {
    const plaintext = Buffer.from('a very recognisable secret sentence');
    expect(seal(key, plaintext).includes(plaintext)).toBe(false);
  });

  const sealed = seal(key, Buffer.from('hello world'), 'ctx');
  const flip = (index: number) => {
    const copy = Buffer.from(sealed);
    copy[index]! ^= 1;
    return copy;
  };
  it.each([
    { name: 'flipped ciphertext byte', bytes: () => flip(14), openKey: key, aad: 'ctx' as string | undefined },
    { name: 'flipped nonce byte', bytes: () => flip(3), openKey: key, aad: 'ctx' },
    { name: 'flipped tag byte', bytes: () => flip(sealed.length - 1), openKey: key, aad: 'ctx' },
    { name: 'wrong aad', bytes: () => sealed, openKey: key, aad: 'other' },
    { name: 'missing aad', bytes: () => sealed, openKey: key, aad: undefined },
    { name: 'wrong key', bytes: () => sealed, openKey: randomBytes(32), aad: 'ctx' },
    { name: 'truncated', bytes: () => sealed.subarray(0, 20), openKey: key, aad: 'ctx' },
    { name: 'unknown version', bytes: () => Buffer.concat([Buffer.of(9), sealed.subarray(1)]), openKey: key, aad: 'ctx' },
  ])('refuses $name', ({ bytes, openKey, aad }) => {
    expect(() => unseal(openKey, bytes(), aad)).toThrow(SealedDataError);
  });

  it('refuses a key of the wrong length', () => {
    expect(() => seal(randomBytes(16), Buffer.from('x'))).toThrow(TypeError);
  });

  it('sealInSlices seals parts into what unseal opens, yielding to the event loop as it goes', async () => {
    const parts = [randomBytes(5 * 1024 * 1024), Buffer.alloc(0), Buffer.from('tail')];
    let turns = 0;
    const ticking = setInterval(() => (turns += 1), 0);
    const sealedParts = await sealInSlices(key, parts, 'ctx');
    clearInterval(ticking);
    expect(unseal(key, Buffer.concat(sealedParts), 'ctx').equals(Buffer.concat(parts))).toBe(true);
    expect(() => unseal(key, Buffer.concat(sealedParts), 'other')).toThrow(SealedDataError);
    // 5 MB is two slices: timers ran in between.
    expect(turns).toBeGreaterThan(0);
  });
});
