import type { z } from 'zod';
import { GatewayError } from '../../errors/gateway-error.js';
import { describeIssue, type IssueLike } from './issue-text.js';

/** `messages[0].content` style field path for details.field. */
export function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  let result = '';
  for (const segment of path) {
    if (typeof segment === 'number') result += `[${segment}]`;
    else result += result === '' ? String(segment) : `.${String(segment)}`;
  }
  return result;
}

function valueAt(root: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let current: unknown = root;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment as string];
  }
  return current;
}

/**
 * Strict request validation: the first problem becomes the spec's error. A missing required
 * field → VALIDATION_4002, anything else (type, range, unknown field) → VALIDATION_4005; both
 * name the field in details.field.
 */
export function parseRequest<Schema extends z.ZodType>(schema: Schema, body: unknown): z.output<Schema> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new GatewayError('VALIDATION_4005', 'The request body must be a JSON object.', { field: 'body' });
  }
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0]!;
    const field = fieldPath([...issue.path, key]);
    throw new GatewayError('VALIDATION_4005', `Unknown parameter "${field}".`, { field });
  }
  const field = fieldPath(issue.path);
  if (issue.code !== 'custom' && issue.path.length > 0 && valueAt(body, issue.path) === undefined) {
    throw new GatewayError('VALIDATION_4002', `Missing required field "${field}".`, { field });
  }
  // A union names its own field; elsewhere the validator's text becomes a phrase ("must be a number, not a string").
  const text = issue.code === 'invalid_union' ? issue.message : describeIssue(issue as IssueLike, body).text;
  throw new GatewayError('VALIDATION_4005', `Invalid value for "${field || 'body'}": ${text}.`, { field: field || 'body' });
}
