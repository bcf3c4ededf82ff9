import { describe, expect, it } from 'vitest';
import { exampleForPattern } from '../../../../src/providers/local/pattern-string.js';

describe('exampleForPattern', () => {
  it.each([
    { pattern: '^[A-Z]{3}-\\d{4}$', example: 'AAA-0000' },
    { pattern: '^(foo|bar)_[a-z]+$', example: 'foo_a' },
    { pattern: '^(?:v)?\\d+\\.\\d+$', example: '0.0' },
    { pattern: '^[^@\\s]+@example\\.com$', example: 'a@example.com' },
    { pattern: 'needle', example: 'needle' },
    { pattern: '^[^a-z0-9]$', example: 'Z' },
  ])('$pattern → $example', ({ pattern, example }) => {
    expect(exampleForPattern(pattern)).toBe(example);
    expect(new RegExp(pattern, 'u').test(example)).toBe(true);
  });

  it('stretches open repeats to reach a minimum length', () => {
    expect(exampleForPattern('^x[0-9]*$', 6)).toBe('x00000');
  });

  it.each([
    { name: 'lookahead', pattern: '^(?=.*\\d).+$' },
    { name: 'back-reference', pattern: '^(a)\\1$' },
    { name: 'invalid regex', pattern: '^(unclosed$' },
  ])('gives up on $name', ({ pattern }) => {
    expect(exampleForPattern(pattern)).toBeUndefined();
  });

  it('gives up when the bounds cannot be met', () => {
    expect(exampleForPattern('^[A-Z]{5}$', 0, 3)).toBeUndefined();
  });
});
