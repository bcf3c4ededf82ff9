import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Tiktoken, type TiktokenBPE } from 'js-tiktoken/lite';
import { describe, expect, it, vi } from 'vitest';
import { decodeTokens, encodePiece, encodeTokens, splitPattern, warmTokenizer } from '../../../src/tokens/tokenizer.js';

// The compact rank table must give exactly js-tiktoken's tokens (the counts igw bills and
// limits with were defined by it). js-tiktoken is the reference here, over the same rank file.
const require = createRequire(import.meta.url);
const reference = new Tiktoken(require('js-tiktoken/ranks/o200k_base') as TiktokenBPE);
const referenceEncode = (text: string): number[] => reference.encode(text, [], []);

const TEXTS: Record<string, string> = {
  english: 'The quick brown fox jumps over the lazy dog. It\'s what they\'ve said; we\'ll see, I\'m sure.',
  capitals: 'HTTPServer JSONParser XMLHttpRequest iPhone McDonald\'S DON\'T',
  numbers: '1 12 123 1234 12345 3.14159 1,000,000 2026-11-26T11:42:46Z 0x1F600',
  whitespace: 'a  b\t\tc\n\nd \r\n e   \n  \n\t\n    indented\n',
  french: 'naïve café — déjà vu, à bientôt ! Ça coûte 12 € ; l\'œuvre',
  cjk: '日本語のテキストと中文文本，还有한국어 텍스트。',
  arabic: 'مرحبا بالعالم، كيف حالك؟ שלום עולם',
  devanagari: 'नमस्ते दुनिया, यह एक परीक्षण है।',
  emoji: 'emoji 👩‍👩‍👧 家族 🎉 mixé 😀😀😀 🦜🦩🪿 𓀀𓀁 🏳️‍🌈 👍🏽',
  code: 'export function f<T>(xs: T[]): Map<string, T> {\n  const m = new Map();\n  for (const x of xs) m.set(String(x), x); // ok\n  return m;\n}\n',
  python: 'def main():\n    if __name__ == "__main__":\n        print(f"{x!r:>10}")\n\treturn [i**2 for i in range(10)]\n',
  json: '{"model":"gpt-4o","messages":[{"role":"user","content":"Hello"}],"temperature":0.7,"stream":true}',
  special: 'emoji and <|endoftext|> and <|endofprompt|> as text <|fim_prefix|>',
  longWords: 'Pneumonoultramicroscopicsilicovolcanoconiosis Donaudampfschifffahrtsgesellschaftskapitän Llanfairpwllgwyngyll',
  urls: 'https://example.com/path/to/resource?query=value&other=1#frag mailto:someone@example.org',
  punctuation: '!!! ??? ... --- === *** ### @@@ $$$ %%% ^^^ &&& ((( ))) [[[ ]]] {{{ }}} ||| ~~~ ``` \'\'\' """',
  loneSurrogate: 'broken \ud800 surrogate \udc00 here',
  control: 'nul\u0000 bell\u0007 del\u007f nbsp\u00a0 zwj\u200d bom\ufeff',
};

describe('compact o200k encoder equals js-tiktoken', () => {
  it.each(Object.entries(TEXTS))('%s', (_name, text) => {
    expect(encodeTokens(text)).toEqual(referenceEncode(text));
  });

  it('equals it on a real document: this repository\'s README', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    // Whole-text encode is only identical where no piece is longer than the sliced length; the
    // README has none, and splitting it keeps the reference fast.
    for (const paragraph of readme.split('\n\n')) expect(encodeTokens(paragraph)).toEqual(referenceEncode(paragraph));
  });

  it('equals it piece by piece on every piece of the split pattern, long ones included', () => {
    const text = Object.values(TEXTS).join('\n') + ' ' + 'abcdefghij'.repeat(6) + ' ' + '😀'.repeat(20);
    for (const match of text.matchAll(splitPattern())) {
      if (match[0].length <= 64) expect(encodePiece(match[0])).toEqual(referenceEncode(match[0]));
    }
  });

  it('decodes like js-tiktoken, special ids and unknown ids included', () => {
    const tokens = [...referenceEncode(TEXTS.emoji!), 199999, 200018, 250000, -1, 1.5, Number.NaN];
    expect(decodeTokens(tokens)).toBe(reference.decode(tokens));
  });

  it('warms up in slices: other event-loop turns run while the table is built', async () => {
    vi.resetModules();
    const fresh = await import('../../../src/tokens/tokenizer.js');
    let turns = 0;
    let warming = true;
    const tick = (): void => {
      turns += 1;
      if (warming) setImmediate(tick);
    };
    setImmediate(tick);
    await fresh.warmTokenizer();
    warming = false;
    expect(turns).toBeGreaterThan(3);
    expect(fresh.encodeTokens(TEXTS.code!)).toEqual(referenceEncode(TEXTS.code!));
  });
});
