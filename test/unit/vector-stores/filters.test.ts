import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { matchesFilter, parseFilter, type Attributes } from '../../../src/vector-stores/filters.js';

const attributes: Attributes = { topic: 'returns', year: 2024, draft: false, region: 'eu' };

describe('matchesFilter', () => {
  const cases: Array<[string, unknown, boolean]> = [
    ['eq string', { type: 'eq', key: 'topic', value: 'returns' }, true],
    ['eq other string', { type: 'eq', key: 'topic', value: 'shipping' }, false],
    ['eq number', { type: 'eq', key: 'year', value: 2024 }, true],
    ['eq does not coerce', { type: 'eq', key: 'year', value: '2024' }, false],
    ['eq boolean', { type: 'eq', key: 'draft', value: false }, true],
    ['eq missing key', { type: 'eq', key: 'nope', value: 'x' }, false],
    ['ne', { type: 'ne', key: 'topic', value: 'shipping' }, true],
    ['ne same', { type: 'ne', key: 'topic', value: 'returns' }, false],
    ['ne missing key', { type: 'ne', key: 'nope', value: 'x' }, true],
    ['gt', { type: 'gt', key: 'year', value: 2023 }, true],
    ['gt equal', { type: 'gt', key: 'year', value: 2024 }, false],
    ['gte equal', { type: 'gte', key: 'year', value: 2024 }, true],
    ['lt', { type: 'lt', key: 'year', value: 2025 }, true],
    ['lt equal', { type: 'lt', key: 'year', value: 2024 }, false],
    ['lte equal', { type: 'lte', key: 'year', value: 2024 }, true],
    ['gt strings compare lexically', { type: 'gt', key: 'topic', value: 'apples' }, true],
    ['gt number vs string never matches', { type: 'gt', key: 'topic', value: 1 }, false],
    ['gt missing key', { type: 'gt', key: 'nope', value: 1 }, false],
    ['in', { type: 'in', key: 'region', value: ['us', 'eu'] }, true],
    ['in absent', { type: 'in', key: 'region', value: ['us'] }, false],
    ['in missing key', { type: 'in', key: 'nope', value: ['us'] }, false],
    ['nin', { type: 'nin', key: 'region', value: ['us'] }, true],
    ['nin present', { type: 'nin', key: 'region', value: ['eu'] }, false],
    ['nin missing key', { type: 'nin', key: 'nope', value: ['eu'] }, true],
    ['and all', { type: 'and', filters: [{ type: 'eq', key: 'topic', value: 'returns' }, { type: 'gte', key: 'year', value: 2024 }] }, true],
    ['and one fails', { type: 'and', filters: [{ type: 'eq', key: 'topic', value: 'returns' }, { type: 'gt', key: 'year', value: 2024 }] }, false],
    ['or one', { type: 'or', filters: [{ type: 'eq', key: 'topic', value: 'x' }, { type: 'eq', key: 'region', value: 'eu' }] }, true],
    ['or none', { type: 'or', filters: [{ type: 'eq', key: 'topic', value: 'x' }, { type: 'eq', key: 'region', value: 'us' }] }, false],
    [
      'nested',
      { type: 'and', filters: [{ type: 'or', filters: [{ type: 'eq', key: 'region', value: 'us' }, { type: 'eq', key: 'draft', value: false }] }, { type: 'lt', key: 'year', value: 3000 }] },
      true,
    ],
  ];
  it.each(cases)('%s', (_name, filter, expected) => {
    expect(matchesFilter(parseFilter(filter), attributes)).toBe(expected);
  });
});

describe('parseFilter refuses invalid filters with the field at fault', () => {
  const cases: Array<[string, unknown, string]> = [
    ['not an object', 'topic=returns', 'filters'],
    ['array', [], 'filters'],
    ['missing type', { key: 'a', value: 1 }, 'filters.type'],
    ['unknown type', { type: 'like', key: 'a', value: 'x' }, 'filters.type'],
    ['missing key', { type: 'eq', value: 1 }, 'filters.key'],
    ['empty key', { type: 'eq', key: '', value: 1 }, 'filters.key'],
    ['missing value', { type: 'eq', key: 'a' }, 'filters.value'],
    ['null value', { type: 'eq', key: 'a', value: null }, 'filters.value'],
    ['object value', { type: 'eq', key: 'a', value: { b: 1 } }, 'filters.value'],
    ['in needs an array', { type: 'in', key: 'a', value: 'x' }, 'filters.value'],
    ['in array of objects', { type: 'in', key: 'a', value: [{}] }, 'filters.value'],
    ['eq with an array', { type: 'eq', key: 'a', value: ['x'] }, 'filters.value'],
    ['gt with a boolean', { type: 'gt', key: 'a', value: true }, 'filters.value'],
    ['unknown field', { type: 'eq', key: 'a', value: 1, extra: 2 }, 'filters.extra'],
    ['empty compound', { type: 'and', filters: [] }, 'filters.filters'],
    ['compound without filters', { type: 'or' }, 'filters.filters'],
    ['invalid nested', { type: 'and', filters: [{ type: 'eq', key: 'a', value: 1 }, { type: 'eq', key: 'b' }] }, 'filters.filters[1].value'],
  ];
  it.each(cases)('%s', (_name, filter, field) => {
    let caught: unknown;
    try {
      parseFilter(filter);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(GatewayError);
    expect((caught as GatewayError).status).toBe(400);
    expect((caught as GatewayError).details).toEqual({ field });
  });

  it('refuses absurd nesting', () => {
    let filter: unknown = { type: 'eq', key: 'a', value: 1 };
    for (let depth = 0; depth < 40; depth += 1) filter = { type: 'and', filters: [filter] };
    expect(() => parseFilter(filter)).toThrow(GatewayError);
  });
});
