import { GatewayError } from '../errors/gateway-error.js';

/** A file attribute value (spec "Vector store file": attributes used for search filtering). */
export type AttributeValue = string | number | boolean;
export type Attributes = Record<string, AttributeValue>;

export type ComparisonType = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'nin';
export type CompoundType = 'and' | 'or';

export type AttributeFilter =
  | { type: ComparisonType; key: string; value: AttributeValue | AttributeValue[] }
  | { type: CompoundType; filters: AttributeFilter[] };

const COMPARISONS: ReadonlySet<string> = new Set(['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin']);
const COMPOUNDS: ReadonlySet<string> = new Set(['and', 'or']);
/** Deeper nesting than this is a mistake or an attack, not a query. */
const MAX_DEPTH = 16;

function isScalar(value: unknown): value is AttributeValue {
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

function invalid(field: string, message: string): GatewayError {
  return new GatewayError('VALIDATION_4005', `Invalid filter at "${field}": ${message}.`, { field });
}

/**
 * Validates a search `filters` object (spec "Search body": comparison {type, key, value} with
 * eq ne gt gte lt lte — plus in/nin as OpenAI has them — and compound {type, filters[]} with and/or).
 * Unknown type, missing key or value, or an empty compound → 400 VALIDATION_4005 naming the field.
 */
export function parseFilter(input: unknown, field = 'filters', depth = 0): AttributeFilter {
  if (depth > MAX_DEPTH) throw invalid(field, `filters nest deeper than ${MAX_DEPTH} levels`);
  if (input === null || typeof input !== 'object' || Array.isArray(input)) throw invalid(field, 'expected an object {type, key, value} or {type, filters}');
  const record = input as Record<string, unknown>;
  const type = record['type'];
  if (typeof type !== 'string' || (!COMPARISONS.has(type) && !COMPOUNDS.has(type))) {
    throw invalid(`${field}.type`, `type must be one of eq, ne, gt, gte, lt, lte, in, nin, and, or (got ${JSON.stringify(type ?? null)})`);
  }
  if (COMPOUNDS.has(type)) {
    const extra = Object.keys(record).find((key) => key !== 'type' && key !== 'filters');
    if (extra !== undefined) throw invalid(`${field}.${extra}`, `unknown field in a ${type} filter`);
    const filters = record['filters'];
    if (!Array.isArray(filters) || filters.length === 0) throw invalid(`${field}.filters`, `a ${type} filter needs a non-empty filters array`);
    return { type: type as CompoundType, filters: filters.map((child, index) => parseFilter(child, `${field}.filters[${index}]`, depth + 1)) };
  }
  const extra = Object.keys(record).find((key) => key !== 'type' && key !== 'key' && key !== 'value');
  if (extra !== undefined) throw invalid(`${field}.${extra}`, `unknown field in a ${type} filter`);
  const key = record['key'];
  if (typeof key !== 'string' || key === '') throw invalid(`${field}.key`, 'key must be a non-empty string');
  if (!('value' in record) || record['value'] === undefined) throw invalid(`${field}.value`, 'value is required');
  const value = record['value'];
  if (type === 'in' || type === 'nin') {
    if (!Array.isArray(value) || !value.every(isScalar)) throw invalid(`${field}.value`, `${type} needs an array of strings, numbers or booleans`);
    return { type, key, value: [...value] };
  }
  if (!isScalar(value)) throw invalid(`${field}.value`, 'value must be a string, number or boolean');
  if ((type === 'gt' || type === 'gte' || type === 'lt' || type === 'lte') && typeof value === 'boolean') {
    throw invalid(`${field}.value`, `${type} compares numbers or strings, not booleans`);
  }
  return { type: type as ComparisonType, key, value };
}

/** Ordering comparison only between values of the same kind (number with number, string with string). */
function ordered(left: AttributeValue, right: AttributeValue): number | null {
  if (typeof left === 'number' && typeof right === 'number') return left - right;
  if (typeof left === 'string' && typeof right === 'string') return left < right ? -1 : left > right ? 1 : 0;
  return null;
}

/**
 * Whether a file's attributes satisfy the filter. A missing attribute fails every positive
 * comparison and passes `ne` / `nin` (it is indeed not equal to / not among the values).
 */
export function matchesFilter(filter: AttributeFilter, attributes: Readonly<Attributes>): boolean {
  switch (filter.type) {
    case 'and':
      return filter.filters.every((child) => matchesFilter(child, attributes));
    case 'or':
      return filter.filters.some((child) => matchesFilter(child, attributes));
    default: {
      const actual = Object.hasOwn(attributes, filter.key) ? attributes[filter.key] : undefined;
      const expected = filter.value;
      switch (filter.type) {
        case 'eq':
          return actual !== undefined && actual === expected;
        case 'ne':
          return actual === undefined || actual !== expected;
        case 'in':
          return actual !== undefined && (expected as AttributeValue[]).includes(actual);
        case 'nin':
          return actual === undefined || !(expected as AttributeValue[]).includes(actual);
        default: {
          if (actual === undefined) return false;
          const difference = ordered(actual, expected as AttributeValue);
          if (difference === null) return false;
          if (filter.type === 'gt') return difference > 0;
          if (filter.type === 'gte') return difference >= 0;
          if (filter.type === 'lt') return difference < 0;
          return difference <= 0;
        }
      }
    }
  }
}
