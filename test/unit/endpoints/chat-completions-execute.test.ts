import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ledger } from '../../../src/billing/ledger.js';
import { Catalog } from '../../../src/catalog/catalog.js';
import { buildConfig } from '../../../src/config/load.js';
import { chatCompletionsExecute, type Execute } from '../../../src/endpoints/chat-completions-execute.js';
import { ProviderRegistry } from '../../../src/providers/registry.js';
import { RouteHealth } from '../../../src/routing/health.js';
import type { RequestLogEntry } from '../../../src/store/request-log.js';
import { openStore, type Store } from '../../../src/store/store.js';
import { randomIds } from '../../../src/util/ids.js';
import { silentLogger } from '../../../src/util/logger.js';
import { systemClock } from '../../../src/util/clock.js';

let dir: string;
let store: Store;
let providers: ProviderRegistry;
let execute: Execute;
const lines: RequestLogEntry[] = [];
const principal = { keyId: 'key_1', account: 'acct', scopes: ['inference.chat'], vaultAccess: false };

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'igw-unit-execute-'));
  store = await openStore(dir);
  await store.accounts.insert({ id: 'acct', plan: 'developer', energy: '100', credits: '100', created_at: 0 });
  const config = buildConfig({}, null, {});
  providers = new ProviderRegistry(config);
  execute = chatCompletionsExecute({
    config,
    catalog: new Catalog(config),
    providers,
    routeHealth: new RouteHealth(systemClock),
    ledger: new Ledger(config, store.accounts),
    accounts: store.accounts,
    vault: store.vault,
    ids: randomIds,
    clock: systemClock,
    logger: silentLogger,
    recordLog: (entry) => void lines.push(entry),
  });
});

afterAll(async () => {
  await providers.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const ask = (content: string, extra: Record<string, unknown> = {}) => ({ model: 'local-echo', messages: [{ role: 'user', content }], ...extra });

/** A batch row through the pipeline, without HTTP: status and body as a live request would answer, one log line each. */
describe('chatCompletionsExecute', () => {
  it.each([
    { name: 'a row is answered by the model, metered', input: ask('hello there'), who: principal, status: 200, code: undefined, content: 'hello there', provider: 'local' },
    { name: 'a blueprint override answers directly', input: ask('hours?', { blueprint_config: { name: 'b', overrides: [{ pattern: '^hours\\?$', reply: 'nine to five' }] } }), who: principal, status: 200, code: undefined, content: 'nine to five', provider: 'blueprint' },
    { name: 'stream is refused', input: ask('hi', { stream: true }), who: principal, status: 400, code: 'VALIDATION_4005', content: undefined, provider: undefined },
    { name: 'an unknown model is the usual 4xx', input: { ...ask('hi'), model: 'no-such-model' }, who: principal, status: 404, code: 'INFERENCE_3001', content: undefined, provider: undefined },
    { name: 'a key without the chat scope', input: ask('hi'), who: { ...principal, scopes: ['inference.embeddings'] }, status: 403, code: 'AUTH_1015', content: undefined, provider: undefined },
    { name: 'an account that no longer exists', input: ask('hi'), who: { ...principal, account: 'gone' }, status: 401, code: 'AUTH_1008', content: undefined, provider: undefined },
  ])('$name → $status', async ({ input, who, status, code, content, provider }) => {
    const before = lines.length;
    const result = await execute(input, who, new AbortController().signal);
    expect(result.status).toBe(status);
    expect(result.requestId).toMatch(/^req_/);
    const body = result.body as { choices?: Array<{ message: { content: string } }>; billing_cost?: unknown; error?: { code: string } };
    if (code === undefined) {
      expect(body.choices![0]!.message.content).toContain(content!);
      expect(body.billing_cost).toBeDefined();
    } else {
      expect(body.error!.code).toBe(code);
    }
    expect(lines.length).toBe(before + 1);
    expect(lines.at(-1)).toMatchObject({ request_id: result.requestId, endpoint: '/v1/chat/completions', status, error_code: code ?? null, provider: provider ?? null, stream: false });
  });
});
