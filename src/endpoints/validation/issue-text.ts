/**
 * A zod issue as a phrase a person can act on ("must be a number, not a string") instead of the
 * validator's own text ("Invalid input: expected number, received string"). Messages written by
 * our schemas (custom checks, `.regex(…, 'size looks like 1024x1024')`) are kept as they are.
 * Used wherever a local check lists problems: config check, batch files, blueprint documents.
 */
import { deepestIssue, valueAt, type Issue } from './zod-issues.js';

/** The fields of a zod 4 issue read here (all optional but code, path and message). */
export interface IssueLike {
  code: string;
  path: PropertyKey[];
  message: string;
  expected?: string;
  origin?: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
  inclusive?: boolean;
  exact?: boolean;
  values?: unknown[];
  format?: string;
  keys?: string[];
  divisor?: number | bigint;
  errors?: IssueLike[][];
}

/** zod's own wording starts like this; anything else was written for people already. */
const GENERATED = /^(Invalid|Too (small|big)|Expected|Unrecognized|Required)/;

export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'object':
      return 'an object';
    case 'string':
      return 'a string';
    case 'number':
      return Number.isInteger(value) ? 'an integer' : 'a number';
    case 'boolean':
      return 'a boolean (true/false)';
    default:
      return typeof value;
  }
}

function expectedName(expected: string): string {
  switch (expected) {
    case 'object':
    case 'array':
    case 'integer':
      return `an ${expected}`;
    case 'int':
      return 'an integer';
    case 'boolean':
      return 'true or false';
    case 'null':
      return 'null';
    default:
      return `a ${expected}`;
  }
}

function bound(issue: IssueLike, kind: 'min' | 'max'): string {
  const limit = Number(kind === 'min' ? issue.minimum : issue.maximum);
  const exact = issue.exact === true;
  switch (issue.origin) {
    case 'string':
      if (kind === 'min' && limit === 1 && !exact) return 'must not be empty';
      return `must be ${exact ? 'exactly' : kind === 'min' ? 'at least' : 'at most'} ${limit} character${limit === 1 ? '' : 's'} long`;
    case 'array':
    case 'set':
      if (kind === 'min' && limit === 1 && !exact) return 'must not be empty';
      return `must have ${exact ? 'exactly' : kind === 'min' ? 'at least' : 'at most'} ${limit} item${limit === 1 ? '' : 's'}`;
    default: {
      const inclusive = issue.inclusive !== false;
      if (kind === 'min') return inclusive ? `must be at least ${limit}` : `must be greater than ${limit}`;
      return inclusive ? `must be at most ${limit}` : `must be less than ${limit}`;
    }
  }
}

/**
 * One issue as `{path, text}`: the path (array of keys) of the offending field and what is wrong
 * with it, phrased to follow the field's name ("messages must not be empty"). `root` is the
 * validated value, used to say what was found instead of what was expected.
 */
export function describeIssue(raw: IssueLike, root: unknown): { path: PropertyKey[]; text: string } {
  const issue = deepestIssue(raw as Issue) as IssueLike;
  const value = valueAt(root, issue.path);
  switch (issue.code) {
    case 'invalid_type':
      if (value === undefined) return { path: issue.path, text: 'is required' };
      return { path: issue.path, text: `must be ${expectedName(issue.expected ?? 'value')}, not ${typeName(value)}` };
    case 'too_small':
      return { path: issue.path, text: bound(issue, 'min') };
    case 'too_big':
      return { path: issue.path, text: bound(issue, 'max') };
    case 'invalid_value': {
      if (!GENERATED.test(issue.message)) return { path: issue.path, text: issue.message };
      const values = (issue.values ?? []).map((item) => JSON.stringify(item));
      return { path: issue.path, text: values.length === 1 ? `must be ${values[0]}` : `must be one of ${values.join(', ')}` };
    }
    case 'invalid_format':
      if (!GENERATED.test(issue.message)) return { path: issue.path, text: issue.message };
      return { path: issue.path, text: `is not a valid ${issue.format ?? 'value'}` };
    case 'not_multiple_of':
      return { path: issue.path, text: `must be a multiple of ${String(issue.divisor)}` };
    case 'unrecognized_keys': {
      const keys = issue.keys ?? [];
      if (keys.length === 1) return { path: [...issue.path, keys[0]!], text: 'is not a known field' };
      return { path: issue.path, text: `has unknown field${keys.length === 1 ? '' : 's'} ${keys.map((key) => `"${key}"`).join(', ')}` };
    }
    case 'invalid_union':
      return { path: issue.path, text: value === undefined ? 'is required' : `has an unsupported form (${typeName(value)})` };
    default:
      return { path: issue.path, text: GENERATED.test(issue.message) ? issue.message.charAt(0).toLowerCase() + issue.message.slice(1) : issue.message };
  }
}
