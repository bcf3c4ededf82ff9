import { describe, expect, it } from 'vitest';
import { closestMatch, didYouMean, editDistance } from '../../../src/util/did-you-mean.js';

describe('did you mean', () => {
  it('counts a swap of neighbours as one edit', () => {
    expect(editDistance('prot', 'port')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('suggests the closest plausible candidate, case-insensitively', () => {
    expect(closestMatch('prot', ['host', 'port', 'cors_origins'])).toBe('port');
    expect(closestMatch('Provders', ['plans', 'providers'])).toBe('providers');
    expect(didYouMean('base_ur', ['base_url', 'api_key'])).toBe(' (did you mean "base_url"?)');
  });

  it('gives nothing for an unrelated word', () => {
    expect(closestMatch('zzzzzz', ['port', 'host'])).toBeUndefined();
    expect(didYouMean('xy', ['port'])).toBe('');
  });
});
