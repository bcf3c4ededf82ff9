import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { describeIssue } from '../../../src/endpoints/validation/issue-text.js';

const schema = z
  .object({
    name: z.string().min(1),
    count: z.number().int().positive().optional(),
    tags: z.array(z.string()).min(1).max(2).optional(),
    mode: z.enum(['a', 'b']).optional(),
    size: z.string().regex(/^\d+x\d+$/, 'size looks like 1024x1024').optional(),
    nested: z.object({ flag: z.boolean() }).strict().optional(),
  })
  .strict();

function texts(value: unknown): string[] {
  const result = schema.safeParse(value);
  if (result.success) return [];
  return result.error.issues.map((issue) => {
    const { path, text } = describeIssue(issue as never, value);
    return `${path.join('.')} ${text}`;
  });
}

describe('describeIssue: validator issues as phrases for people', () => {
  it.each([
    [{}, ['name is required']],
    [{ name: '' }, ['name must not be empty']],
    [{ name: 'x', count: 'three' }, ['count must be a number, not a string']],
    [{ name: 'x', count: 0 }, ['count must be greater than 0']],
    [{ name: 'x', tags: [] }, ['tags must not be empty']],
    [{ name: 'x', tags: ['a', 'b', 'c'] }, ['tags must have at most 2 items']],
    [{ name: 'x', mode: 'c' }, ['mode must be one of "a", "b"']],
    [{ name: 'x', size: 'big' }, ['size size looks like 1024x1024']],
    [{ name: 'x', nested: { flag: 'yes' } }, ['nested.flag must be true or false, not a string']],
    [{ name: 'x', colour: 'red' }, ['colour is not a known field']],
  ])('%j', (value, expected) => {
    expect(texts(value)).toEqual(expected);
    for (const text of texts(value)) expect(text).not.toMatch(/Invalid input|expected \w+, received/);
  });
});
