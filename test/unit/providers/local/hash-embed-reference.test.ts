import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { embedText, fmix32, fnv1a32 } from '../../../../src/providers/local/hash-embed.js';
import { wordTokens } from '../../../../src/providers/local/word-tokens.js';

/**
 * local-embed as DESIGN §3 states it, with each feature as its text: "w:" + word, "t:" + each
 * character trigram of "<word>", "\u0000empty" for a text without words; counts in first-seen
 * order, word weight 1, trigram weight 0.5, sublinear frequency, a signed bucket per feature,
 * the first d components at unit length.
 */
function referenceEmbed(text: string, dimensions: number): number[] {
  const features = new Map<string, number>();
  for (const word of wordTokens(text)) {
    features.set(`w:${word}`, (features.get(`w:${word}`) ?? 0) + 1);
    const letters = Array.from(`<${word}>`);
    for (let start = 0; start + 3 <= letters.length; start++) {
      const trigram = `t:${letters.slice(start, start + 3).join('')}`;
      features.set(trigram, (features.get(trigram) ?? 0) + 1);
    }
  }
  if (features.size === 0) features.set('\u0000empty', 1);
  const vector = new Float64Array(384);
  for (const [feature, count] of features) {
    const hash = fnv1a32(feature);
    const sign = fmix32(hash ^ 0x9e3779b9) & 1 ? -1 : 1;
    vector[fmix32(hash) % 384]! += sign * (feature.startsWith('t:') ? 0.5 : 1) * (1 + Math.log(count));
  }
  let squares = 0;
  for (let index = 0; index < dimensions; index++) squares += vector[index]! * vector[index]!;
  const norm = Math.sqrt(squares);
  return Array.from(vector.subarray(0, dimensions), (value) => (norm === 0 ? 1 / Math.sqrt(dimensions) : value / norm));
}

function files(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) files(full, out);
    else if (statSync(full).size < 200_000) out.push(full);
  }
  return out;
}

it('local-embed\'s vectors are bit for bit those of its features written out as text (fixtures, their lines, 3,000 random texts of ASCII, BMP, astral and lone surrogate units; 5 dimension counts)', () => {
  const texts: string[] = ['', ' ', '!!', 'a', 'ab', 'the cat', 'Café naïve 日本語 😀 emoji𝑥word', '\ud800 lone \udc00 x\ud800y', 'ǅungla Ωmega Straße ÆØÅ', 'a😀b😀c', '😀', 'x😀', '\u0301\u0301', 'emoji emoji𝑥 moj <em jio>', 'ab😀 ab ab😀ab'];
  for (const file of files('fixtures')) {
    const text = readFileSync(file, 'utf8');
    texts.push(text);
    for (const line of text.split('\n')) texts.push(line);
  }
  let random = 7;
  const next = (): number => ((random = (Math.imul(random, 1103515245) + 12345) >>> 0), random);
  for (let n = 0; n < 3000; n++) {
    let text = '';
    const length = next() % 40;
    for (let i = 0; i < length; i++) {
      const pick = next() % 10;
      text += pick < 5 ? String.fromCharCode(97 + (next() % 26)) : pick < 6 ? ' ' : pick < 7 ? String.fromCharCode(0x80 + (next() % 0x780)) : pick < 8 ? String.fromCharCode(0x800 + (next() % 0xf000)) : pick < 9 ? String.fromCodePoint(0x10000 + (next() % 0x10000)) : String.fromCharCode(0xd800 + (next() % 0x800));
    }
    texts.push(text);
  }
  let compared = 0;
  for (const text of texts) {
    for (const dimensions of [384, 256, 64, 7, 1]) {
      const a = embedText(text, dimensions);
      const b = referenceEmbed(text, dimensions);
      expect(Buffer.from(new Float64Array(a).buffer).equals(Buffer.from(new Float64Array(b).buffer)), JSON.stringify(text)).toBe(true);
      compared++;
    }
  }
  expect(compared).toBeGreaterThan(100_000);
});
