import { describe, expect, it } from 'vitest';
import { chunkText, type Chunk } from '../../../src/chunking/chunk-text.js';
import { tokenOffsets } from '../../../src/chunking/token-offsets.js';
import { countTokens, encodeTokens } from '../../../src/tokens/tokenizer.js';

/** Deterministic prose: sentences of varied length, paragraphs of a few sentences. */
function prose(paragraphs: number, sentencesPerParagraph = 6): string {
  const words = ['gateway', 'vector', 'store', 'index', 'token', 'chunk', 'search', 'model', 'energy', 'cost', 'route', 'file', 'batch', 'offline', 'retrieval'];
  let seed = 7;
  const next = (): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed;
  };
  const out: string[] = [];
  for (let p = 0; p < paragraphs; p += 1) {
    const sentences: string[] = [];
    for (let s = 0; s < sentencesPerParagraph; s += 1) {
      const length = 6 + (next() % 14);
      const sentence = Array.from({ length }, () => words[next() % words.length]).join(' ');
      sentences.push(`${sentence[0]!.toUpperCase()}${sentence.slice(1)}.`);
    }
    out.push(sentences.join(' '));
  }
  return out.join('\n\n');
}

/** Deterministic text from a word list without repeats long enough to confuse `locate`. */
function mixed(words: readonly string[], count: number, separator: (index: number) => string): string {
  let seed = 11;
  let out = '';
  for (let index = 0; index < count; index += 1) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    out += words[seed % words.length]! + separator(seed);
  }
  return out;
}

/** Start offsets of each chunk in the source (chunks are slices of it, in order). */
function locate(source: string, chunks: Chunk[]): number[] {
  const positions: number[] = [];
  let from = 0;
  for (const chunk of chunks) {
    const at = source.indexOf(chunk.text, from);
    expect(at, `chunk not found in order: ${chunk.text.slice(0, 40)}`).toBeGreaterThanOrEqual(0);
    positions.push(at);
    from = at + 1;
  }
  return positions;
}

describe('chunkText', () => {
  it.each([
    ['empty text', ''],
    ['spaces and newlines only', ' \n\n \t \r\n '],
  ])('returns no chunk for %s', (_name, text) => {
    expect(chunkText(text, { maxTokens: 100, overlapTokens: 0 })).toEqual([]);
  });

  it.each([
    ['maxTokens 0', { maxTokens: 0, overlapTokens: 0 }],
    ['maxTokens fractional', { maxTokens: 10.5, overlapTokens: 0 }],
    ['negative overlap', { maxTokens: 10, overlapTokens: -1 }],
    ['overlap equal to max', { maxTokens: 10, overlapTokens: 10 }],
  ])('refuses %s', (_name, options) => {
    expect(() => chunkText('some text', options)).toThrow(RangeError);
  });

  it('keeps a short text as one chunk, trimmed of blank edges, with its token count', () => {
    const chunks = chunkText('\n\nHello world. This is short.\n\n', { maxTokens: 800, overlapTokens: 400 });
    expect(chunks).toEqual([{ text: 'Hello world. This is short.', tokens: countTokens('Hello world. This is short.') }]);
  });

  // exact: false where the text has runs longer than 64 characters, which are counted in slices
  // (token-offsets.ts) and would take seconds to re-encode whole here.
  const cases: Array<{ name: string; text: string; maxTokens: number; overlapTokens: number; exact?: false }> = [
    { name: 'prose, auto sizes', text: prose(60), maxTokens: 800, overlapTokens: 400 },
    { name: 'prose, small static', text: prose(30), maxTokens: 100, overlapTokens: 50 },
    { name: 'prose, no overlap', text: prose(30), maxTokens: 120, overlapTokens: 0 },
    { name: 'one long line without breaks', text: prose(20).replace(/\n+/g, ' '), maxTokens: 150, overlapTokens: 30 },
    { name: 'an unbroken run (hard cuts)', text: mixed(['qx', 'zv', 'kw', 'jy', 'pf'], 8000, () => ''), maxTokens: 100, overlapTokens: 20, exact: false },
    { name: 'emoji and CJK', text: mixed(['数据', '是', '新的', '石油。', '🙂', '🚀', '👩‍👩‍👧', 'Ünïcödé', 'façade', 'naïve café.', '—'], 3000, (n) => (n % 7 === 0 ? '\n' : n % 3 === 0 ? ' ' : '')), maxTokens: 64, overlapTokens: 16 },
    { name: 'tiny windows over emoji', text: mixed(['🙂', '🚀', '🧪', '🦀', '🫠'], 600, () => ''), maxTokens: 2, overlapTokens: 1 },
    { name: 'code', text: Array.from({ length: 400 }, (_, i) => `  const value${i} = compute(${i}, "x");`).join('\n'), maxTokens: 128, overlapTokens: 32 },
  ];

  describe.each(cases)('$name', ({ text, maxTokens, overlapTokens, exact }) => {
    const chunks = chunkText(text, { maxTokens, overlapTokens });

    it('makes non-empty chunks within the size limit', () => {
      expect(chunks.length).toBeGreaterThan(1);
      for (const chunk of chunks) {
        expect(chunk.text.trim()).not.toBe('');
        expect(chunk.tokens).toBeGreaterThan(0);
        // A multi-token character may push a tiny window past its size; never a real one.
        expect(chunk.tokens).toBeLessThanOrEqual(maxTokens < 4 ? 4 : maxTokens);
        expect(chunk.text).not.toContain('\uFFFD');
      }
    });

    it.skipIf(exact === false)('reports token counts that re-encoding the chunk confirms (±1 at each edge)', () => {
      for (const chunk of chunks) expect(Math.abs(countTokens(chunk.text) - chunk.tokens)).toBeLessThanOrEqual(2);
    });

    it('covers the whole text in order, overlapping by at most the requested tokens', () => {
      const positions = locate(text, chunks);
      let coveredTo = 0;
      for (let index = 0; index < chunks.length; index += 1) {
        const start = positions[index]!;
        // Only whitespace may be skipped between what was covered and this chunk.
        if (start > coveredTo) expect(text.slice(coveredTo, start).trim()).toBe('');
        if (index > 0) {
          const overlap = coveredTo - start;
          if (overlapTokens === 0) expect(overlap).toBeLessThanOrEqual(0);
          else {
            if (maxTokens >= 4) expect(overlap).toBeGreaterThan(0);
            if (exact !== false) expect(countTokens(text.slice(start, coveredTo))).toBeLessThanOrEqual(overlapTokens + 1);
          }
        }
        coveredTo = start + chunks[index]!.text.length;
      }
      expect(text.slice(coveredTo).trim()).toBe('');
    });

    it('is deterministic', () => {
      expect(chunkText(text, { maxTokens, overlapTokens })).toEqual(chunks);
    });
  });

  it('ends chunks at paragraph breaks when the window holds one', () => {
    const text = prose(40, 4);
    const chunks = chunkText(text, { maxTokens: 300, overlapTokens: 0 });
    const paragraphs = text.split('\n\n');
    for (const chunk of chunks) expect(paragraphs).toContain(chunk.text.split('\n\n').at(-1));
  });

  it('ends chunks at sentence ends when there is no line break', () => {
    const text = prose(20).replace(/\n+/g, ' ');
    const chunks = chunkText(text, { maxTokens: 200, overlapTokens: 0 });
    for (const chunk of chunks) expect(chunk.text.endsWith('.')).toBe(true);
  });

  it('starts overlapping chunks at a word boundary', () => {
    const text = prose(20).replace(/\n+/g, ' ');
    const chunks = chunkText(text, { maxTokens: 200, overlapTokens: 100 });
    const positions = locate(text, chunks);
    for (const position of positions.slice(1)) expect(/\s/.test(text[position - 1]!)).toBe(true);
  });

  it('cuts an unbroken run at exactly maxTokens', () => {
    const chunks = chunkText('0123456789'.repeat(2000), { maxTokens: 100, overlapTokens: 0 });
    expect(chunks.slice(0, -1).every((chunk) => chunk.tokens === 100)).toBe(true);
  });

  it('counts a long unbroken run in slices, quickly and never under the real count', () => {
    const run = 'qwertyuiopasdfghjklzxcvbnm'.repeat(40);
    const started = performance.now();
    const [chunk] = chunkText(run, { maxTokens: 4096, overlapTokens: 0 });
    expect(performance.now() - started).toBeLessThan(5000);
    expect(chunk!.text).toBe(run);
    const exact = countTokens(run.slice(0, 256));
    const sliced = chunkText(run.slice(0, 256), { maxTokens: 4096, overlapTokens: 0 })[0]!.tokens;
    expect(sliced).toBeGreaterThanOrEqual(exact);
    expect(sliced).toBeLessThanOrEqual(Math.ceil(exact * 1.2));
  });

  it('survives lone surrogates (they count as U+FFFD, like the tokenizer sees them)', () => {
    const chunks = chunkText(`broken \uD800 text `.repeat(100), { maxTokens: 50, overlapTokens: 10 });
    expect(chunks.length).toBeGreaterThan(1);
  });
});

describe('tokenOffsets', () => {
  it.each([
    ['prose', prose(20)],
    ['code', 'function f(a, b) {\n\treturn a + b; // sum\n}\n\n\n    indented   spaces   \n'.repeat(50)],
    ['unicode', '数据是新的石油。🙂🚀👩‍👩‍👧 Ünïcödé <|endoftext|> \u00A0 x'.repeat(30)],
    ['digits and punctuation', '3.14159, 2,718; 1e-10 -- ((([[]]))) ... !!! ??? 12345678901234567890'.repeat(40)],
  ])('gives the tokenizer’s token count and offsets that slice back to the text (%s)', (_name, text) => {
    const { count, starts } = tokenOffsets(text);
    expect(count).toBe(encodeTokens(text).length);
    expect(starts[0]).toBe(0);
    expect(starts[count]).toBe(text.length);
    let previous = -1;
    for (let index = 0; index <= count; index += 1) {
      const offset = starts[index]!;
      if (offset < 0) continue;
      expect(offset).toBeGreaterThan(previous);
      previous = offset;
    }
  });
});
