import { Ledger } from '../../../src/billing/ledger.js';
import { Catalog } from '../../../src/catalog/catalog.js';
import { buildConfig, type Config } from '../../../src/config/load.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import type { InferenceScope } from '../../../src/inference/index.js';
import type { ProviderAdapter } from '../../../src/providers/types.js';
import { RouteHealth } from '../../../src/routing/health.js';
import type { AccountRecord } from '../../../src/store/accounts.js';
import type { AccountRepository } from '../../../src/store/accounts.js';
import { silentLogger, type Logger } from '../../../src/util/logger.js';

/** A scope over a real catalog, route health and ledger; adapters are in-memory scripts, debits and error lines are recorded. */
/** A provider registry over partial adapters: an unknown id is the registry's own refusal. */
export function fakeProviders(adapters: Record<string, Partial<ProviderAdapter>>): { get(id: string): ProviderAdapter } {
  return {
    get(id: string) {
      const adapter = adapters[id];
      if (adapter === undefined) throw new GatewayError('INFERENCE_3104', `Provider "${id}" is not available.`);
      return { kind: 'openai', id, ...adapter } as ProviderAdapter;
    },
  };
}

export interface ScopeFixture {
  scope: InferenceScope;
  config: Config;
  debits: Array<{ balance: string; amount: string }>;
  errors: string[];
  abort: AbortController;
}

export function scopeFixture(options: { raw?: unknown; adapters?: Record<string, Partial<ProviderAdapter>>; account?: Partial<AccountRecord> } = {}): ScopeFixture {
  const config = buildConfig(options.raw ?? {}, null, {});
  const debits: ScopeFixture['debits'] = [];
  const errors: string[] = [];
  const accounts = { debit: async (_account: string, balance: string, amount: string) => void debits.push({ balance, amount }) } as unknown as AccountRepository;
  const account: AccountRecord = { id: 'acct', plan: 'developer', energy: '0', credits: '100', created_at: 0, ...options.account };
  const plan = config.plans[account.plan] ?? config.plans[config.default_plan]!;
  const adapters = options.adapters ?? {};
  const logger: Logger = { ...silentLogger, error: (message) => void errors.push(message) };
  const abort = new AbortController();
  const scope: InferenceScope = {
    deps: {
      config,
      catalog: new Catalog(config),
      providers: fakeProviders(adapters),
      routeHealth: new RouteHealth({ now: () => Date.now() }),
      ledger: new Ledger(config, accounts),
      clock: { now: () => 1_700_000_000_000 },
      logger,
    },
    principal: { keyId: 'key', account: account.id, scopes: ['chat'], vaultAccess: false },
    account,
    planName: account.plan,
    plan,
    requestId: 'req_test',
    signal: abort.signal,
    log: {},
    timing: { startedAt: performance.now(), upstreamMs: 0 },
  };
  return { scope, config, debits, errors, abort };
}

/** Two OpenAI-kind providers, one chat model routed to both (a first, b second), priced per token. */
export const TWO_ROUTES = {
  providers: {
    a: { kind: 'openai', base_url: 'https://a.test/v1' },
    b: { kind: 'openai', base_url: 'https://b.test/v1' },
  },
  models: {
    duo: {
      type: 'chat',
      capabilities: { vision: false, function_calling: false },
      context_length: 64,
      routes: [
        { provider: 'a', upstream_model: 'a-model', priority: 1, pricing: { input_cost_per_million_eur: 1_000_000, output_cost_per_million_eur: 2_000_000 } },
        { provider: 'b', upstream_model: 'b-model', priority: 2 },
      ],
    },
  },
};
