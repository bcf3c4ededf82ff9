import { describe, expect, it } from 'vitest';
import { closestMatch, didYouMean, editDistance } from '../../../src/util/did-you-mean.js';

describe('did you mean', () => {
  it('edit distance counts an adjacent swap as one edit', () => {
    expect(editDistance('local-ecoh', 'local-echo')).toBe(1);
    expect(editDistance('abc', 'abc')).toBe(0);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it.each([
    ['gpt-4o-mni', ['gpt-4o', 'gpt-4o-mini', 'local-echo'], 'gpt-4o-mini'],
    ['LOCAL-ECHO', ['local-echo'], 'local-echo'],
    ['local-embd', ['local-echo', 'local-embed'], 'local-embed'],
    ['foo', ['local-echo'], undefined],
    ['gpt-5', ['local-echo', 'local-embed', 'local-image'], undefined],
  ])('%s among %j → %s', (input, candidates, expected) => {
    expect(closestMatch(input, candidates)).toBe(expected);
  });

  it('phrases the hint with a leading space, or nothing', () => {
    expect(didYouMean('local-ecoh', ['local-echo'])).toBe(' Did you mean "local-echo"?');
    expect(didYouMean('zzz', ['local-echo'])).toBe('');
  });
});
