import { describe, expect, it } from 'vitest';
import { embeddingListText } from '../../../src/endpoints/embeddings.js';
import { mergeEmbeddingResults } from '../../../src/providers/openai-compatible/embeddings-batching.js';
import { endOfNumberArray, readEmbeddingsBody } from '../../../src/providers/openai-compatible/embeddings-body.js';
import { normalizeEmbeddings } from '../../../src/providers/openai-compatible/normalize.js';
import { listRecorded, readRecorded } from '../../helpers/recorded.js';

/** What the full path (JSON.parse + zod, normalize.ts) reads from the same text. */
function fullRead(text: string, count: number) {
  return normalizeEmbeddings(JSON.parse(text) as unknown, count, 'acme');
}

describe('readEmbeddingsBody: vectors kept as the upstream text', () => {
  for (const file of listRecorded('embeddings', '.json')) {
    it(`${file}: reads what the full path reads, or leaves it to it`, () => {
      const text = readRecorded(file);
      const count = (JSON.parse(text) as { data?: unknown[] }).data?.length ?? 0;
      let full: ReturnType<typeof fullRead> | undefined;
      try {
        full = fullRead(text, count);
      } catch {
        full = undefined;
      }
      const raw = readEmbeddingsBody(text, count);
      // The float capture is the shape this reader exists for; base64 ones go the full path.
      if (file.includes('float-trimmed')) expect(raw).toBeDefined();
      if (raw === undefined) return;
      // Whatever the raw reader accepts, the full path accepts with the same numbers.
      expect(full).toBeDefined();
      expect(raw.vectors).toEqual(full!.vectors);
      expect(raw.promptTokens).toBe(full!.promptTokens);
    });
  }

  it('takes a plain float answer (the OpenAI shape), in index order', () => {
    const text = JSON.stringify({ object: 'list', data: [{ object: 'embedding', index: 1, embedding: [0.5, -2e-7] }, { object: 'embedding', index: 0, embedding: [1, 0, -0.25] }], model: 'm', usage: { prompt_tokens: 6, total_tokens: 6 } });
    const result = readEmbeddingsBody(text, 2);
    expect(result?.vectorsJson).toEqual(['[1,0,-0.25]', '[0.5,-2e-7]']);
    expect(result?.vectors).toEqual([[1, 0, -0.25], [0.5, -2e-7]]);
    expect(result?.promptTokens).toBe(6);
  });

  it('keeps whitespace and number spellings as sent', () => {
    const text = '{"data": [ {"embedding" :\n [ 1.50E+1 , -0.0,\t3 ] , "index": 0} ], "usage": {"total_tokens": 3}}';
    const result = readEmbeddingsBody(text, 1);
    expect(result?.vectorsJson).toEqual(['[ 1.50E+1 , -0.0,\t3 ]']);
    expect(result?.vectors).toEqual([[15, -0, 3]]);
    expect(result?.promptTokens).toBe(3);
  });

  it('leaves every unusual body to the full path', () => {
    const unusual = [
      '{"data":[{"embedding":"AACAPw=="}]}', // base64
      '{"data":[{"embedding":[1,2]}],"extra":{"embedding":[3]}}', // an embedding key elsewhere
      '{"data":[{"embedding":[1],"meta":{"embedding":[2]}}]}', // two in one item
      '{"data":[{"embedding":[1e999]}]}', // overflows to Infinity, which the full path refuses
      '{"data":[{"embedding":[01]}]}', // not JSON
      '{"data":[{"embedding":[1.]}]}',
      '{"data":[{"embedding":[-]}]}',
      '{"data":[{"embedding":[1e]}]}',
      '{"data":[{"embedding":[1,]}]}',
      '{"data":[{"embedding":[1] ]}', // the rest is not JSON
      '{"data":[{"embedding":[1],"index":1}]}', // index out of range
      '{"data":[{"embedding":[1],"index":0},{"embedding":[2],"index":0}]}', // duplicate index
      '{"data":[{"embedding":[1],"index":-1}]}',
      '{"data":[{"embedding":[1],"index":"0"}]}',
      '{"data":[{"embedding":[1]}],"note":"\\u0000"}', // could hold a placeholder
      '{"\\"embedding":[1],"data":[{"embedding":[2]}]}', // a key that merely ends in "embedding"
      '{"data":{"embedding":[1]}}', // data not a list
    ];
    for (const text of unusual) expect([text, readEmbeddingsBody(text, text.includes('},{') ? 2 : 1)]).toEqual([text, undefined]);
  });

  it('reads a malformed usage as the full path does (no count)', () => {
    for (const usage of ['null', '"x"', '[]', '{"prompt_tokens":"8","total_tokens":"8"}']) {
      const text = `{"data":[{"embedding":[1]}],"usage":${usage}}`;
      expect(readEmbeddingsBody(text, 1)?.promptTokens).toBe(fullRead(text, 1).promptTokens);
    }
    expect(readEmbeddingsBody('{"data":[{"embedding":[1]}],"usage":{"prompt_tokens":null,"total_tokens":5}}', 1)?.promptTokens).toBe(5);
  });

  it('endOfNumberArray follows the JSON number grammar', () => {
    expect(endOfNumberArray('[]', 0)).toBe(2);
    expect(endOfNumberArray('[ ]x', 0)).toBe(3);
    expect(endOfNumberArray('[0,-0.5e-12,3E+04]', 0)).toBe(18);
    for (const bad of ['[+1]', '[.5]', '[1..2]', '[1,,2]', '[NaN]', '[1', '["1"]', '[[1]]', '[1 2]']) expect([bad, endOfNumberArray(bad, 0)]).toEqual([bad, -1]);
  });

  it('endOfNumberArray agrees with JSON.parse on random texts (within its digit bounds)', () => {
    // The oracle: the first ] ends the array (only numbers inside); the text up to it must parse
    // as an array of finite numbers, each with at most 300 integer digits and a 1-2 digit exponent.
    const oracle = (text: string): number => {
      const close = text.indexOf(']');
      if (close === -1) return -1;
      let parsed: unknown;
      try {
        parsed = JSON.parse(text.slice(0, close + 1));
      } catch {
        return -1;
      }
      if (!Array.isArray(parsed) || !parsed.every((value) => typeof value === 'number' && Number.isFinite(value))) return -1;
      const inner = text.slice(1, close).trim();
      for (const token of inner === '' ? [] : inner.split(',').map((part) => part.trim())) {
        const [mantissa = '', exponent] = token.split(/[eE]/);
        if (mantissa.replace(/^-/, '').split('.')[0]!.length > 300) return -1;
        if (exponent !== undefined && (exponent.replace(/^[+-]/, '').length > 2 || exponent.replace(/^[+-]/, '').length === 0)) return -1;
      }
      return close + 1;
    };
    let seed = 7;
    const random = (below: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % below;
    };
    const alphabet = ['0', '1', '9', '-', '+', '.', 'e', 'E', ',', ' ', '\n', ']', '12', '0.5', '-3e7', '1e123', '7'.repeat(301)];
    let accepted = 0;
    for (let round = 0; round < 20_000; round += 1) {
      let text = '[';
      for (let length = random(12); length > 0; length -= 1) text += alphabet[random(alphabet.length)];
      if (random(2) === 0) text += ']';
      const got = endOfNumberArray(text, 0);
      expect([text, got]).toEqual([text, oracle(text)]);
      if (got !== -1) accepted += 1;
    }
    expect(accepted).toBeGreaterThan(500);
  });

  it('endOfNumberArray refuses a long unterminated array in linear time', () => {
    const started = performance.now();
    expect(endOfNumberArray(`[${'123.5e-7, '.repeat(100_000)}`, 0)).toBe(-1);
    expect(endOfNumberArray(`[${'1'.repeat(300)}${', 1'.repeat(100_000)} 2]`, 0)).toBe(-1);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('batches that kept their texts merge as texts', () => {
    const first = readEmbeddingsBody('{"data":[{"embedding":[1]}],"usage":{"prompt_tokens":2}}', 1)!;
    const second = readEmbeddingsBody('{"data":[{"embedding":[2,3]}],"usage":{"prompt_tokens":3}}', 1)!;
    const merged = mergeEmbeddingResults([first, second]);
    expect(merged.vectorsJson).toEqual(['[1]', '[2,3]']);
    expect(merged.vectors).toEqual([[1], [2, 3]]);
    expect(merged.promptTokens).toBe(5);
    expect(mergeEmbeddingResults([first, { vectors: [[4]], promptTokens: 1 }])).toEqual({ vectors: [[1], [4]], promptTokens: 3 });
  });
});

describe('embeddingListText', () => {
  it('is the document JSON.stringify would write, vectors spliced in', () => {
    const tail = { model: 'bench-embed', usage: { prompt_tokens: 8, total_tokens: 8 }, environment_impact: { energy_kwh: 0.1 }, billing_cost: { eur: '0.0001' } };
    const vectors = [[0.1, -2.5e-8, 3], [], [1]];
    const text = embeddingListText(vectors.map((vector) => JSON.stringify(vector)), tail);
    expect(text).toBe(JSON.stringify({ object: 'list', data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })), ...tail }));
  });
});
