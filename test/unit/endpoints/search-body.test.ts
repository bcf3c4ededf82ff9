import { describe, expect, it } from 'vitest';
import { parseSearchBody } from '../../../src/endpoints/vector-stores/search-body.js';
import { searchSchema } from '../../../src/endpoints/vector-stores/schemas.js';
import { parseRequest } from '../../../src/endpoints/validation/parse.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';

/** What a parse gives: the parsed body, or the refusal's code, message and details. */
function outcome(parse: (body: unknown) => unknown, body: unknown): unknown {
  try {
    return { ok: parse(body) };
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    return { code: error.code, message: error.message, details: error.details };
  }
}

const bodies: unknown[] = [
  { query: 'w1 w2 w3' },
  { query: 'w1', max_num_results: 10 },
  { query: 'w1', max_num_results: 1, rewrite_query: true, filters: { type: 'eq', key: 'a', value: 1 } },
  { query: '', max_num_results: 50 },
  { query: 'w1', filters: null },
  { query: 'w1', filters: 'not a filter' },
  { query: ['w1', 'w2'] },
  { query: 'w1', ranking_options: { ranker: 'none', score_threshold: 0.5 } },
  { query: 'w1', max_num_results: 0 },
  { query: 'w1', max_num_results: 51 },
  { query: 'w1', max_num_results: 2.5 },
  { query: 'w1', max_num_results: '10' },
  { query: 'w1', rewrite_query: 'yes' },
  { query: 7 },
  { max_num_results: 10 },
  {},
  { query: 'w1', unknown_field: 1 },
  JSON.parse('{"query":"w1","__proto__":{"x":1}}'),
  [],
  null,
  'query',
];

describe('search body', () => {
  it('accepts and refuses exactly as the schema does, with the same result and wording', () => {
    for (const body of bodies) {
      expect(outcome(parseSearchBody, body), JSON.stringify(body)).toEqual(outcome((value) => parseRequest(searchSchema, value), body));
    }
  });

  it('hands the common body back without the schema parse (the same object)', () => {
    const body = { query: 'w1 w2', max_num_results: 10 };
    expect(parseSearchBody(body)).toBe(body);
    const listed = { query: ['w1', 'w2'] };
    expect(parseSearchBody(listed)).not.toBe(listed);
  });
});
