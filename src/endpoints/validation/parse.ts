import type { z } from 'zod';
import { GatewayError } from '../../errors/gateway-error.js';
import { parseForwardCompatible } from './forward-compatible.js';
import { describeIssue, type IssueLike } from './issue-text.js';
import { fieldPath, valueAt, type Issue } from './zod-issues.js';

export { fieldPath };

/**
 * Strict request validation: the first problem becomes the spec's error. A missing required
 * field → VALIDATION_4002, anything else (type, range, unknown field) → VALIDATION_4005; both
 * name the field in details.field.
 */
export function parseRequest<Schema extends z.ZodType>(schema: Schema, body: unknown): z.output<Schema> {
  requireObjectBody(body);
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  throw refusal(result.error.issues[0] as unknown as Issue, body);
}

/**
 * Forward-compatible validation for inference surfaces (DESIGN §5; see forward-compatible.ts):
 * unknown names are removed and listed in `unknownFields` (refused when `strict`), everything
 * known is checked as strictly as `parseRequest` does, with the same wording.
 */
export function parseOpenRequest<Schema extends z.ZodType>(schema: Schema, body: unknown, strict: boolean): { data: z.output<Schema>; unknownFields: string[] } {
  requireObjectBody(body);
  const parsed = parseForwardCompatible(schema, body, strict);
  if (!parsed.success) throw refusal(parsed.issues[0]!, body, ' (server.strict_params is on)');
  return { data: parsed.data, unknownFields: parsed.unknownFields };
}

function requireObjectBody(body: unknown): void {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new GatewayError('VALIDATION_4005', 'The request body must be a JSON object.', { field: 'body' });
  }
}

/** One zod issue as the spec's error, in the gateway's wording. */
function refusal(issue: Issue, body: unknown, unknownHint = ''): GatewayError {
  if (issue.code === 'unrecognized_keys') {
    const field = fieldPath([...issue.path, issue.keys?.[0] ?? '']);
    return new GatewayError('VALIDATION_4005', `Unknown parameter "${field}"${unknownHint}.`, { field });
  }
  const field = fieldPath(issue.path);
  if (issue.code !== 'custom' && issue.path.length > 0 && valueAt(body, issue.path) === undefined) {
    return new GatewayError('VALIDATION_4002', `Missing required field "${field}".`, { field });
  }
  // A union names its own field; elsewhere the validator's text becomes a phrase ("must be a number, not a string").
  const text = issue.code === 'invalid_union' ? issue.message : describeIssue(issue as IssueLike, body).text;
  return new GatewayError('VALIDATION_4005', `Invalid value for "${field || 'body'}": ${text}.`, { field: field || 'body' });
}
