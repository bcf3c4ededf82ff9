import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { KEY_PREFIX, digestsEqual, displayKey, generateApiKey, hashApiKey, isWellFormedKey } from '../../../src/auth/keys.js';

describe('generateApiKey', () => {
  it('is sk-svc- followed by 128 URL-safe characters', () => {
    for (let index = 0; index < 50; index += 1) {
      const key = generateApiKey();
      expect(key.startsWith(KEY_PREFIX)).toBe(true);
      expect(key).toHaveLength(KEY_PREFIX.length + 128);
      expect(key).toMatch(/^sk-svc-[A-Za-z0-9_-]{128}$/);
      expect(isWellFormedKey(key)).toBe(true);
    }
  });

  it('never repeats', () => {
    const keys = new Set(Array.from({ length: 500 }, () => generateApiKey()));
    expect(keys.size).toBe(500);
  });

  it('uses the whole URL-safe alphabet over many keys (no obviously biased mapping)', () => {
    const seen = new Set(Array.from({ length: 50 }, () => generateApiKey().slice(KEY_PREFIX.length)).join(''));
    expect(seen.size).toBe(64);
  });
});

describe('isWellFormedKey', () => {
  const body = 'a'.repeat(128);
  it.each<{ name: string; candidate: string; expected: boolean }>([
    { name: 'well formed', candidate: `sk-svc-${body}`, expected: true },
    { name: 'URL-safe punctuation', candidate: `sk-svc-${'-_'.repeat(64)}`, expected: true },
    { name: '127 characters', candidate: `sk-svc-${'a'.repeat(127)}`, expected: false },
    { name: '129 characters', candidate: `sk-svc-${'a'.repeat(129)}`, expected: false },
    { name: 'wrong prefix', candidate: `sk-abc-${body}`, expected: false },
    { name: 'openai style', candidate: `sk-${body}`, expected: false },
    { name: 'non URL-safe character', candidate: `sk-svc-${'a'.repeat(127)}+`, expected: false },
    { name: 'padding', candidate: `sk-svc-${'a'.repeat(127)}=`, expected: false },
    { name: 'trailing newline', candidate: `sk-svc-${body}\n`, expected: false },
    { name: 'empty', candidate: '', expected: false },
    { name: 'prefix only', candidate: 'sk-svc-', expected: false },
  ])('$name → $expected', ({ candidate, expected }) => {
    expect(isWellFormedKey(candidate)).toBe(expected);
  });
});

describe('hashApiKey', () => {
  it.each(['sk-svc-abc', generateApiKey(), ''])('is the SHA-256 hex digest of %s', (key) => {
    const hash = hashApiKey(key);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).toBe(createHash('sha256').update(key, 'utf8').digest('hex'));
  });

  it('differs for keys differing in one character', () => {
    const key = generateApiKey();
    const other = `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
    expect(hashApiKey(key)).not.toBe(hashApiKey(other));
  });
});

describe('digestsEqual', () => {
  const a = hashApiKey('one');
  const b = hashApiKey('two');
  it.each<{ name: string; left: string; right: string; expected: boolean }>([
    { name: 'same digest', left: a, right: a, expected: true },
    { name: 'same digest, other case', left: a, right: a.toUpperCase(), expected: true },
    { name: 'different digests', left: a, right: b, expected: false },
    { name: 'different lengths', left: a, right: a.slice(0, 32), expected: false },
    { name: 'empty vs digest', left: '', right: a, expected: false },
    { name: 'both empty', left: '', right: '', expected: true },
  ])('$name → $expected', ({ left, right, expected }) => {
    expect(digestsEqual(left, right)).toBe(expected);
  });
});

describe('displayKey', () => {
  it.each(Array.from({ length: 20 }, () => generateApiKey()))('reveals at most 8 characters of the secret of %s', (key) => {
    const shown = displayKey(key);
    expect(shown.startsWith(KEY_PREFIX)).toBe(true);
    const secret = key.slice(KEY_PREFIX.length);
    const revealed = shown.slice(KEY_PREFIX.length).replace('…', '');
    expect(revealed.length).toBeLessThanOrEqual(8);
    expect(shown).toBe(`${KEY_PREFIX}${secret.slice(0, 4)}…${secret.slice(-4)}`);
    expect(isWellFormedKey(shown)).toBe(false);
    expect(shown).not.toContain(secret.slice(0, 9));
  });
});
