import { describe, expect, it } from 'vitest';
import { ConfigError, buildConfig, formatJsonPath, interpolateEnv, parseConfigText, type ConfigIssue } from '../../../src/config/load.js';
import { BUILTIN_LOCAL_MODELS } from '../../../src/config/defaults.js';

function issuesOf(run: () => unknown): ConfigIssue[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).issues;
  }
  throw new Error('expected a ConfigError');
}

const paths = (issues: ConfigIssue[]) => issues.map((issue) => issue.path);

const openaiProvider = { kind: 'openai', base_url: 'https://api.openai.com/v1', api_key: 'sk-test' };
const chatModel = (provider = 'openai', extra: Record<string, unknown> = {}) => ({
  type: 'chat',
  routes: [{ provider, upstream_model: 'gpt-4o-mini' }],
  ...extra,
});

describe('formatJsonPath', () => {
  it.each<{ segments: PropertyKey[]; expected: string }>([
    { segments: [], expected: '$' },
    { segments: ['server', 'port'], expected: '$.server.port' },
    { segments: ['models', 'gpt-4o-mini', 'routes', 0, 'provider'], expected: '$.models["gpt-4o-mini"].routes[0].provider' },
    { segments: ['providers', 'openai', 'kindd'], expected: '$.providers.openai.kindd' },
    { segments: ['plans', 'my plan'], expected: '$.plans["my plan"]' },
    { segments: ['models', 'a.b'], expected: '$.models["a.b"]' },
    { segments: ['a', 0, 1], expected: '$.a[0][1]' },
    { segments: ['_private', '$ref'], expected: '$._private.$ref' },
    { segments: ['9lives'], expected: '$["9lives"]' },
  ])('$segments → $expected', ({ segments, expected }) => {
    expect(formatJsonPath(segments)).toBe(expected);
  });
});

describe('interpolateEnv', () => {
  it.each<{ name: string; value: unknown; env: NodeJS.ProcessEnv; expected: unknown }>([
    { name: 'whole string', value: '${KEY}', env: { KEY: 'secret' }, expected: 'secret' },
    { name: 'inside a string', value: 'Bearer ${KEY}!', env: { KEY: 'secret' }, expected: 'Bearer secret!' },
    { name: 'several names', value: '${A}-${B}', env: { A: '1', B: '2' }, expected: '1-2' },
    { name: 'empty value is set', value: 'x${A}x', env: { A: '' }, expected: 'xx' },
    { name: 'not a reference', value: '$KEY and {KEY}', env: { KEY: 'no' }, expected: '$KEY and {KEY}' },
    { name: 'numbers untouched', value: 42, env: {}, expected: 42 },
    { name: 'null untouched', value: null, env: {}, expected: null },
    { name: 'nested objects and arrays', value: { a: ['${A}', { b: '${B}' }], c: true }, env: { A: '1', B: '2' }, expected: { a: ['1', { b: '2' }], c: true } },
    { name: 'no recursive expansion', value: '${A}', env: { A: '${B}', B: 'x' }, expected: '${B}' },
  ])('$name', ({ value, env, expected }) => {
    const issues: ConfigIssue[] = [];
    expect(interpolateEnv(value, env, issues)).toEqual(expected);
    expect(issues).toEqual([]);
  });

  it.each<{ value: unknown; path: string; variable: string }>([
    { value: '${MISSING}', path: '$', variable: 'MISSING' },
    { value: { providers: { openai: { api_key: '${OPENAI_API_KEY}' } } }, path: '$.providers.openai.api_key', variable: 'OPENAI_API_KEY' },
    { value: { server: { cors_origins: ['ok', '${ORIGIN}'] } }, path: '$.server.cors_origins[1]', variable: 'ORIGIN' },
  ])('a missing variable is an issue at $path', ({ value, path, variable }) => {
    const issues: ConfigIssue[] = [];
    interpolateEnv(value, {}, issues);
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path).toBe(path);
    expect(issues[0]!.message).toContain(variable);
  });
});

describe('buildConfig: built-in defaults', () => {
  const config = buildConfig({}, null, {});

  it('has the local provider and its models', () => {
    expect(config.providers['local']).toMatchObject({ kind: 'local', enabled: true });
    expect(Object.keys(config.models).sort()).toEqual(['local-echo', 'local-embed', 'local-image', 'local-rerank']);
    expect(config.models['local-echo']!.type).toBe('chat');
    expect(config.models['local-embed']!.type).toBe('embeddings');
    expect(config.models['local-rerank']!.type).toBe('reranker');
    expect(config.models['local-image']!.type).toBe('image');
  });

  it('has the plans developer and free', () => {
    expect(config.default_plan).toBe('developer');
    expect(config.plans['developer']!.benefits.sort()).toEqual(['advanced_models', 'api_usage', 'studio_access']);
    expect(config.plans['free']!.benefits).toEqual([]);
  });

  it('has the documented defaults', () => {
    expect(config.source).toBeNull();
    expect(config.server).toMatchObject({ port: 8787, host: '127.0.0.1', cors_origins: [], allow_private_urls: false });
    expect(config.billing.energy_units_per_eur).toBe(1000);
    expect(config.vector_stores.embedding_model).toBe('local-embed');
    expect(config.batches).toEqual({ concurrency: 8, max_requests_per_file: 50000, lease_seconds: 30 });
    expect(config.message_tiers).toEqual({ opus: 'local-echo', sonnet: 'local-echo', haiku: 'local-echo' });
  });

  it('keeps user providers and models beside the built-ins', () => {
    const withOpenai = buildConfig({ providers: { openai: openaiProvider }, models: { 'gpt-4o-mini': chatModel() } }, '/x/igw.config.json', {});
    expect(withOpenai.source).toBe('/x/igw.config.json');
    expect(Object.keys(withOpenai.providers).sort()).toEqual(['local', 'openai']);
    expect(Object.keys(withOpenai.models)).toContain('gpt-4o-mini');
    expect(Object.keys(withOpenai.models)).toContain('local-echo');
    expect(withOpenai.providers['openai']).toMatchObject({ enabled: true, timeout_ms: 60000, pue: 1.2, headers: {} });
    expect(withOpenai.models['gpt-4o-mini']!.routes[0]).toMatchObject({ priority: 1, flavors: [], energy: {} });
  });

  it('user plans are merged with the built-in ones', () => {
    const custom = buildConfig({ plans: { team: { benefits: ['api_usage'] } }, default_plan: 'team' }, null, {});
    expect(Object.keys(custom.plans).sort()).toEqual(['developer', 'free', 'team']);
    expect(custom.plans['team']).toEqual({ benefits: ['api_usage'], requests_per_minute: 600, storage_free_gb: 1 });
  });

  it('vector-store storage billing defaults: 1 GB free per plan, €0.09 per GB-day above it, 7 days of grace', () => {
    const config = buildConfig({}, null, {});
    expect(Object.values(config.plans).map((plan) => plan.storage_free_gb)).toEqual([1, 1]);
    expect(config.billing).toMatchObject({ storage_eur_per_gb_day: 0.09, storage_grace_days: 7 });
    const custom = buildConfig({ billing: { storage_eur_per_gb_day: 0.1, storage_grace_days: 0 }, plans: { free: { storage_free_gb: 0.5 } } }, null, {});
    expect(custom.billing).toMatchObject({ storage_eur_per_gb_day: 0.1, storage_grace_days: 0 });
    expect(custom.plans['free']!.storage_free_gb).toBe(0.5);
  });

  it('providers.local.enabled=false removes the local models', () => {
    const config = buildConfig(
      { providers: { local: { kind: 'local', enabled: false }, openai: openaiProvider }, models: { 'gpt-4o-mini': chatModel() }, vector_stores: { embedding_model: 'x' } },
      null,
      {},
    );
    expect(Object.keys(config.models)).toEqual(['gpt-4o-mini']);
    expect(config.providers['local']!.enabled).toBe(false);
    expect(config.message_tiers).toEqual({ opus: 'gpt-4o-mini', sonnet: 'gpt-4o-mini', haiku: 'gpt-4o-mini' });
  });

  it('providers.local.enabled=false alone is a valid config (no built-in model left to check tiers against)', () => {
    // Bug: message_tiers default to "local-echo" even after the local models were removed, and the
    // cross-check then reports $.message_tiers.opus/sonnet/haiku for something the user never wrote.
    const config = buildConfig({ providers: { local: { kind: 'local', enabled: false } } }, null, {});
    expect(Object.keys(config.models)).toEqual([]);
  });

  it('configuring the local provider keeps its built-in environment figures for fields the user did not set', () => {
    // Bug: the user's "local" entry has already been through the schema, so its defaults
    // (pue 1.2, carbon 400 g/kWh, water 1.8 l/kWh) override the built-in ones (1, 0, 0).
    const config = buildConfig({ providers: { local: { kind: 'local', timeout_ms: 5000 } } }, null, {});
    expect(config.providers['local']).toMatchObject({ kind: 'local', enabled: true, timeout_ms: 5000, pue: 1, carbon_g_per_kwh: 0, water_l_per_kwh: 0, location: 'ZZ' });
  });

  it('explicit environment figures on the local provider win', () => {
    const config = buildConfig({ providers: { local: { kind: 'local', pue: 1.4, carbon_g_per_kwh: 50 } } }, null, {});
    expect(config.providers['local']).toMatchObject({ pue: 1.4, carbon_g_per_kwh: 50 });
  });

  it('message tiers default to the first chat model', () => {
    const config = buildConfig({ providers: { openai: openaiProvider }, models: { 'gpt-4o-mini': chatModel() } }, null, {});
    expect(config.message_tiers.opus).toBe('local-echo');
  });

  it('explicit message tiers are kept', () => {
    const tiers = { opus: 'gpt-4o-mini', sonnet: 'local-echo', haiku: 'local-echo' };
    expect(buildConfig({ providers: { openai: openaiProvider }, models: { 'gpt-4o-mini': chatModel() }, message_tiers: tiers }, null, {}).message_tiers).toEqual(tiers);
  });

  it('interpolates environment variables before validation', () => {
    const config = buildConfig({ providers: { openai: { ...openaiProvider, api_key: '${OPENAI_API_KEY}', base_url: '${BASE}/v1' } } }, null, { OPENAI_API_KEY: 'sk-env', BASE: 'http://127.0.0.1:9999' });
    expect(config.providers['openai']).toMatchObject({ api_key: 'sk-env', base_url: 'http://127.0.0.1:9999/v1' });
  });
});

describe('buildConfig: problems reported with their JSON path', () => {
  it.each<{ name: string; raw: unknown; env?: NodeJS.ProcessEnv; path: string; message?: RegExp }>([
    { name: 'unknown top-level key', raw: { sever: {} }, path: '$.sever' },
    { name: 'unknown key under server', raw: { server: { prot: 8080 } }, path: '$.server.prot' },
    { name: 'unknown key in a provider', raw: { providers: { openai: { ...openaiProvider, kindd: 'openai' } } }, path: '$.providers.openai.kindd' },
    { name: 'unknown key in a route', raw: { providers: { openai: openaiProvider }, models: { m: { type: 'chat', routes: [{ provider: 'openai', upstream_model: 'm', priorty: 2 }] } } }, path: '$.models.m.routes[0].priorty' },
    { name: 'unknown key in pricing', raw: { providers: { openai: openaiProvider }, models: { m: { type: 'chat', routes: [{ provider: 'openai', upstream_model: 'm', pricing: { input_per_million: 1 } }] } } }, path: '$.models.m.routes[0].pricing.input_per_million' },
    { name: 'port as a string', raw: { server: { port: '8787' } }, path: '$.server.port' },
    { name: 'port out of range', raw: { server: { port: 70000 } }, path: '$.server.port' },
    { name: 'cors_origins not an array', raw: { server: { cors_origins: 'http://a' } }, path: '$.server.cors_origins' },
    { name: 'unknown provider kind', raw: { providers: { x: { kind: 'ollama', base_url: 'http://x' } } }, path: '$.providers.x.kind' },
    { name: 'negative price', raw: { providers: { openai: openaiProvider }, models: { m: { type: 'chat', routes: [{ provider: 'openai', upstream_model: 'm', pricing: { input_cost_per_million_eur: -1 } }] } } }, path: '$.models.m.routes[0].pricing.input_cost_per_million_eur' },
    { name: 'unknown model type', raw: { models: { m: { type: 'video', routes: [{ provider: 'local', upstream_model: 'm' }] } } }, path: '$.models.m.type' },
    { name: 'unknown flavor', raw: { models: { m: { type: 'chat', routes: [{ provider: 'local', upstream_model: 'm', flavors: ['cheap'] }] } } }, path: '$.models.m.routes[0].flavors[0]' },
    { name: 'model without routes', raw: { models: { m: { type: 'chat', routes: [] } } }, path: '$.models.m.routes' },
    { name: 'unknown benefit', raw: { plans: { team: { benefits: ['gold'] } } }, path: '$.plans.team.benefits[0]' },
    { name: 'openai provider without base_url', raw: { providers: { openai: { kind: 'openai' } } }, path: '$.providers.openai.base_url', message: /base_url/ },
    { name: 'anthropic provider without base_url', raw: { providers: { claude: { kind: 'anthropic' } } }, path: '$.providers.claude.base_url' },
    { name: 'missing environment variable', raw: { providers: { openai: { ...openaiProvider, api_key: '${OPENAI_API_KEY}' } } }, env: {}, path: '$.providers.openai.api_key', message: /OPENAI_API_KEY/ },
    { name: 'route to an unknown provider', raw: { models: { m: { type: 'chat', routes: [{ provider: 'nope', upstream_model: 'm' }] } } }, path: '$.models.m.routes[0].provider', message: /nope/ },
    { name: 'unknown default_plan', raw: { default_plan: 'gold' }, path: '$.default_plan', message: /gold/ },
    { name: 'message tier naming an unknown model', raw: { message_tiers: { opus: 'claude-opus', sonnet: 'local-echo', haiku: 'local-echo' } }, path: '$.message_tiers.opus', message: /claude-opus/ },
    { name: 'model id with a colon', raw: { models: { 'm:eco': { type: 'chat', routes: [{ provider: 'local', upstream_model: 'm' }] } } }, path: '$.models["m:eco"]' },
    { name: 'embedding model of the wrong type', raw: { vector_stores: { embedding_model: 'local-echo' } }, path: '$.vector_stores.embedding_model' },
    { name: 'reranker of the wrong type', raw: { vector_stores: { reranker: 'local-embed' } }, path: '$.vector_stores.reranker', message: /not reranker/ },
    { name: 'unknown reranker', raw: { vector_stores: { reranker: 'cohere-rerank' } }, path: '$.vector_stores.reranker', message: /cohere-rerank/ },
  ])('$name → $path', ({ raw, env, path, message }) => {
    const issues = issuesOf(() => buildConfig(raw, null, env ?? {}));
    expect(paths(issues)).toContain(path);
    if (message !== undefined) expect(issues.find((issue) => issue.path === path)!.message).toMatch(message);
  });

  it('reports several problems together', () => {
    const issues = issuesOf(() =>
      buildConfig(
        {
          server: { port: 'x', host: 5 },
          providers: { openai: { kind: 'openai', api_key: '${NOPE}' } },
          batches: { concurrency: 0 },
        },
        null,
        {},
      ),
    );
    expect(paths(issues)).toEqual(expect.arrayContaining(['$.server.port', '$.server.host', '$.providers.openai.api_key', '$.providers.openai.base_url', '$.batches.concurrency']));
  });

  it('reports several cross-reference problems together', () => {
    const issues = issuesOf(() =>
      buildConfig({ default_plan: 'gold', message_tiers: { opus: 'a', sonnet: 'b', haiku: 'local-echo' }, models: { m: { type: 'chat', routes: [{ provider: 'p1', upstream_model: 'x' }, { provider: 'p2', upstream_model: 'y' }] } } }, null, {}),
    );
    expect(paths(issues).sort()).toEqual(['$.default_plan', '$.message_tiers.opus', '$.message_tiers.sonnet', '$.models.m.routes[0].provider', '$.models.m.routes[1].provider'].sort());
  });

  it('the ConfigError message lists every issue with its path', () => {
    try {
      buildConfig({ default_plan: 'gold', message_tiers: { opus: 'a', sonnet: 'local-echo', haiku: 'local-echo' } }, '/etc/igw.json', {});
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).source).toBe('/etc/igw.json');
      expect((error as Error).message).toMatch(/^\/etc\/igw\.json has 2 problems:/);
      expect((error as Error).message).toContain('$.default_plan');
      expect((error as Error).message).toContain('$.message_tiers.opus');
    }
  });
});

describe('parseConfigText', () => {
  it.each<{ name: string; text: string }>([
    { name: 'line comments', text: '{\n  // the port\n  "server": { "port": 9000 }\n}' },
    { name: 'block comments', text: '{ /* the port */ "server": { "port": 9000 } }' },
    { name: 'trailing commas', text: '{ "server": { "port": 9000, }, }' },
    { name: 'everything at once', text: '{\n // c\n "server": { "port": 9000, /* x */ "cors_origins": ["http://a",], },\n}\n' },
  ])('accepts $name', ({ text }) => {
    expect(parseConfigText(text, 'igw.config.json', {}).server.port).toBe(9000);
  });

  it('accepts an empty object as the defaults', () => {
    expect(parseConfigText('{}', null, {}).server.port).toBe(8787);
  });

  it.each<{ name: string; text: string; path: RegExp }>([
    { name: 'unterminated object', text: '{ "server": { "port": 9000 }', path: /^line 1, column \d+$/ },
    { name: 'bad token on line 3', text: '{\n  "server": {},\n  "x": nope\n}', path: /^line 3, column \d+$/ },
  ])('reports $name with its line and column', ({ text, path }) => {
    const issues = issuesOf(() => parseConfigText(text, 'igw.config.json', {}));
    expect(issues.length).toBeGreaterThan(0);
    expect(issues[0]!.path).toMatch(path);
    expect(issues[0]!.message).toMatch(/not valid JSON/);
  });

  it('validates after parsing (paths as JSON paths)', () => {
    expect(paths(issuesOf(() => parseConfigText('{ "server": { "port": "x", }, }', null, {})))).toEqual(['$.server.port']);
  });

  it('interpolates ${NAME} from the given environment', () => {
    const config = parseConfigText('{ "providers": { "openai": { "kind": "openai", "base_url": "https://api.openai.com/v1", "api_key": "${K}" } } }', null, { K: 'v' });
    expect(config.providers['openai']!.api_key).toBe('v');
  });
});

describe('built-in model table', () => {
  it.each(Object.entries(BUILTIN_LOCAL_MODELS))('%s routes only to the local provider and offers every flavor', (_id, model) => {
    expect(model.routes.map((route) => route.provider)).toEqual(['local']);
    expect([...model.routes[0]!.flavors].sort()).toEqual(['batch', 'eco', 'free', 'speed']);
  });
});
