import { describe, expect, it } from 'vitest';
import { mapMessagesModel } from '../../../src/endpoints/messages.js';
import { buildConfig } from '../../../src/config/load.js';

const defaults = buildConfig({}, null, {});
const custom = buildConfig(
  {
    models: { 'big-one': { type: 'chat', routes: [{ provider: 'local', upstream_model: 'local-echo' }] }, 'huge-one': { type: 'chat', routes: [{ provider: 'local', upstream_model: 'local-echo' }] } },
    message_tiers: { big: 'big-one', bigger: 'huge-one', haiku: 'local-echo' },
  },
  null,
  {},
);

describe('message-style model mapping (spec: tier name contained, case-insensitive)', () => {
  it.each([
    ['default tiers: opus', defaults, 'claude-3-opus-20240229', 'local-echo'],
    ['default tiers: upper case', defaults, 'CLAUDE-SONNET-4-5', 'local-echo'],
    ['an exact catalog id wins over tiers', custom, 'big-one', 'big-one'],
    ['configurable names', custom, 'my-big-model', 'big-one'],
    ['the longest matching tier name wins', custom, 'my-bigger-model', 'huge-one'],
    ['a name without a tier is used as is', custom, 'gpt-4o', 'gpt-4o'],
    ['tiers not configured are not matched', custom, 'claude-opus-4', 'claude-opus-4'],
  ])('%s', (_name, config, requested, expected) => {
    expect(mapMessagesModel(requested, config)).toBe(expected);
  });
});
