import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { createKey, type CreateKeyOptions } from '../../src/admin/keys-admin.js';
import { startGateway, type Gateway, type GatewayOptions } from '../../src/app/gateway.js';
import { buildConfig, type Config } from '../../src/config/load.js';
import { silentLogger } from '../../src/util/logger.js';
import { dataKeyEnv } from './data-key-env.js';
import { matrixStore } from './store-matrix.js';

export interface TestGateway {
  gateway: Gateway;
  url: string;
  dataDir: string;
  config: Config;
  /** A full-access key on the "default" account. */
  key: string;
  newKey(options?: CreateKeyOptions): Promise<string>;
  openai(key?: string, options?: Partial<ConstructorParameters<typeof OpenAI>[0]>): OpenAI;
  /** The official Anthropic client pointed at this gateway (no retries, so errors surface at once). */
  anthropic(key?: string): Anthropic;
  close(): Promise<void>;
}

/**
 * Starts the real gateway on 127.0.0.1:0 with a temp data dir and the given raw config (`options`:
 * clock, timers, logger). In the test matrix's postgres project the store is a new PostgreSQL
 * database (store-matrix.ts), dropped again at close.
 */
export async function startTestGateway(rawConfig: unknown = {}, env: NodeJS.ProcessEnv = {}, options: Pick<GatewayOptions, 'clock' | 'timers' | 'logger'> = {}): Promise<TestGateway> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'igw-test-'));
  const store = await matrixStore(rawConfig);
  const config = buildConfig(store.rawConfig, null, env);
  let gateway: Gateway;
  try {
    gateway = await startGateway({ dataDir, config, port: 0, host: '127.0.0.1', logger: silentLogger, env: dataKeyEnv(config), ...options });
  } catch (error) {
    await store.release();
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  const newKey = async (options: CreateKeyOptions = {}) => (await createKey(gateway.app.store, config, options)).key;
  const key = await newKey({ name: 'test' });
  return {
    gateway,
    url: gateway.url,
    dataDir,
    config,
    key,
    newKey,
    openai: (apiKey = key, options = {}) => new OpenAI({ apiKey, baseURL: `${gateway.url}/v1`, maxRetries: 0, timeout: 10_000, ...options }),
    anthropic: (apiKey = key) => new Anthropic({ apiKey, baseURL: gateway.url, maxRetries: 0, timeout: 10_000 }),
    async close() {
      await gateway.close();
      await store.release();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** fetch against the gateway with a JSON body and the key. */
export async function postJson(url: string, key: string | undefined, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; json: any }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { authorization: `Bearer ${key}` }), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: response.status, headers: response.headers, json };
}

/** A config with one OpenAI-compatible provider "up" at `baseUrl` serving chat model "up-chat" and embeddings "up-embed". */
export function upstreamConfig(baseUrl: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    providers: {
      up: { kind: 'openai', base_url: baseUrl, api_key: 'sk-upstream-secret', timeout_ms: 2000, location: 'FR', pue: 1.2, renewable_percent: 70, carbon_g_per_kwh: 50, water_l_per_kwh: 1.5 },
    },
    models: {
      'up-chat': {
        type: 'chat',
        owned_by: 'up',
        context_length: 8000,
        max_output_tokens: 1000,
        capabilities: { streaming: true, function_calling: true, vision: true, structured_output: true, json_schema: true },
        routes: [
          {
            provider: 'up',
            upstream_model: 'real-model-1',
            flavors: ['speed', 'batch'],
            pricing: { input_cost_per_million_eur: 0.14, output_cost_per_million_eur: 0.55, cache_read_cost_per_million_eur: 0.07 },
            energy: { wh_per_1k_input_tokens: 0.02, wh_per_1k_output_tokens: 0.2 },
          },
        ],
      },
      'up-embed': {
        type: 'embeddings',
        owned_by: 'up',
        context_length: 8000,
        capabilities: { dimensions: true },
        dimensions: 3,
        routes: [{ provider: 'up', upstream_model: 'real-embed-1', pricing: { input_cost_per_million_eur: 0.02 }, energy: { wh_per_1k_input_tokens: 0.001 } }],
      },
    },
    ...overrides,
  };
}

/**
 * A config with one Anthropic-kind provider "claude" at `baseUrl` serving chat model
 * "claude-chat" (upstream `claude-sonnet-4-5`), with every message tier mapped to it.
 */
export function anthropicUpstreamConfig(baseUrl: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    providers: { claude: { kind: 'anthropic', base_url: baseUrl, api_key: 'sk-ant-upstream-secret', timeout_ms: 2000, location: 'US', pue: 1.1, renewable_percent: 50, carbon_g_per_kwh: 300, water_l_per_kwh: 1 } },
    models: {
      'claude-chat': {
        type: 'chat',
        owned_by: 'anthropic',
        context_length: 200_000,
        max_output_tokens: 4096,
        capabilities: { streaming: true, function_calling: true, vision: true },
        routes: [{ provider: 'claude', upstream_model: 'claude-sonnet-4-5', pricing: { input_cost_per_million_eur: 3, output_cost_per_million_eur: 15, cache_read_cost_per_million_eur: 0.3 }, energy: { wh_per_1k_input_tokens: 0.01, wh_per_1k_output_tokens: 0.1 } }],
      },
    },
    message_tiers: { opus: 'claude-chat', sonnet: 'claude-chat', haiku: 'claude-chat' },
    ...overrides,
  };
}

/**
 * Both fakes behind one gateway: "up-chat" on an OpenAI-compatible provider (the translated
 * path of /v1/messages) and "claude-chat" on an Anthropic-kind provider (native pass-through);
 * message tiers map to claude-chat.
 */
export function bothUpstreamsConfig(openaiBaseUrl: string, anthropicBaseUrl: string): Record<string, unknown> {
  const openai = upstreamConfig(openaiBaseUrl) as { providers: object; models: object };
  const anthropic = anthropicUpstreamConfig(anthropicBaseUrl) as { providers: object; models: object; message_tiers: object };
  return { providers: { ...openai.providers, ...anthropic.providers }, models: { ...openai.models, ...anthropic.models }, message_tiers: anthropic.message_tiers };
}
