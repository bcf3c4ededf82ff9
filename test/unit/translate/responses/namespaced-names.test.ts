import { describe, expect, it } from 'vitest';
import { flatFunctionName } from '../../../../src/translate/responses/namespaced-names.js';

describe('flatFunctionName', () => {
  it('joins namespace and name with a double underscore', () => {
    expect(flatFunctionName('multi_agent_v1', 'spawn_agent')).toBe('multi_agent_v1__spawn_agent');
  });

  it('keeps long names within the chat wire limit (64), distinct and stable', () => {
    const long = 'n'.repeat(40);
    const first = flatFunctionName(long, `${'f'.repeat(30)}_one`);
    const second = flatFunctionName(long, `${'f'.repeat(30)}_two`);
    expect(first).toHaveLength(64);
    expect(first).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(first).not.toBe(second);
    expect(flatFunctionName(long, `${'f'.repeat(30)}_one`)).toBe(first);
  });
});
