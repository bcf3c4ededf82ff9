import { describe, expect, it } from 'vitest';
import { buildConfig } from '../../../src/config/load.js';

/** DESIGN §4 "Team mode": `store` and `redis` in the config, strict, with ${ENV} interpolation. */
describe('store and redis config', () => {
  it('defaults to the JSON data dir and no Redis', () => {
    const config = buildConfig({}, null, {});
    expect(config.store).toEqual({ kind: 'json' });
    expect(config.redis).toBeUndefined();
  });

  it('reads a postgres store and a Redis URL from the environment', () => {
    const config = buildConfig({ store: { kind: 'postgres', url: '${DATABASE_URL}' }, redis: { url: '${REDIS_URL}' } }, null, {
      DATABASE_URL: 'postgres://igw@127.0.0.1:5432/igw',
      REDIS_URL: 'redis://127.0.0.1:6379',
    });
    expect(config.store).toEqual({ kind: 'postgres', url: 'postgres://igw@127.0.0.1:5432/igw' });
    expect(config.redis).toEqual({ url: 'redis://127.0.0.1:6379' });
  });

  it('names each problem: a missing variable, a missing url, an unknown kind, a wrong scheme, an unknown key', () => {
    const problems = (raw: unknown) => {
      try {
        buildConfig(raw, null, {});
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(problems({ store: { kind: 'postgres', url: '${DATABASE_URL}' } })).toMatch(/store\.url: environment variable DATABASE_URL is not set/);
    expect(problems({ store: { kind: 'postgres' } })).toMatch(/store\.url/);
    expect(problems({ store: { kind: 'mysql' } })).toMatch(/store\.kind/);
    expect(problems({ store: { kind: 'postgres', url: 'http://db' } })).toMatch(/starts with postgres:\/\//);
    expect(problems({ redis: { url: 'redis://x', pool: 2 } })).toMatch(/unknown key "pool"/);
    expect(problems({ redis: { url: 'tcp://x' } })).toMatch(/starts with redis:\/\//);
  });
});
