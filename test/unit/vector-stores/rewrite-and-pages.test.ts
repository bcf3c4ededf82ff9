import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { paginate, parseListQuery } from '../../../src/vector-stores/pagination.js';
import { rewriteQuery } from '../../../src/vector-stores/rewrite-query.js';

describe('rewriteQuery', () => {
  it.each([
    ['What is the return policy?', 'return policy'],
    ['  How do I   reset my PASSWORD?? ', 'reset password'],
    ['refund refund REFUND', 'refund'],
    ['What is it?', 'what is it'],
    ["l'été à Paris", "l'été à paris"],
    ['GPU-memory limits', 'gpu-memory limits'],
  ])('%j → %j', (query, expected) => {
    expect(rewriteQuery(query)).toBe(expected);
  });
});

describe('list pages', () => {
  const items = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id }));
  const page = (query: Record<string, string>) => paginate(items, parseListQuery(new URLSearchParams(query)), (item) => item);

  it.each([
    [{}, ['e', 'd', 'c', 'b', 'a'], false],
    [{ limit: '2' }, ['e', 'd'], true],
    [{ limit: '2', order: 'asc' }, ['a', 'b'], true],
    [{ order: 'asc', after: 'b' }, ['c', 'd', 'e'], false],
    [{ order: 'asc', after: 'b', limit: '2' }, ['c', 'd'], true],
    [{ order: 'asc', before: 'd' }, ['a', 'b', 'c'], false],
    [{ order: 'asc', before: 'e', limit: '2' }, ['c', 'd'], true],
    [{ order: 'asc', after: 'a', before: 'e', limit: '2' }, ['b', 'c'], true],
    [{ order: 'desc', after: 'd' }, ['c', 'b', 'a'], false],
  ])('%j', (query, ids, hasMore) => {
    const result = page(query as Record<string, string>);
    expect(result.data.map((item) => item.id)).toEqual(ids);
    expect(result.has_more).toBe(hasMore);
    expect(result.first_id).toBe(ids[0] ?? null);
    expect(result.last_id).toBe(ids[ids.length - 1] ?? null);
  });

  it.each([[{ limit: '0' }], [{ limit: '101' }], [{ limit: 'ten' }], [{ order: 'up' }], [{ after: 'zzz' }], [{ before: 'zzz' }]])('refuses %j', (query) => {
    expect(() => page(query as Record<string, string>)).toThrow(GatewayError);
  });
});
