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
