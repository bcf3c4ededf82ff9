import type { Config } from '../config/load.js';
import type { ProviderConfig } from '../config/schema.js';
import { GatewayError } from '../errors/gateway-error.js';
import { createAnthropicAdapter } from './anthropic/adapter.js';
import { UpstreamHttpClient } from './http-client.js';
import { createLocalAdapter } from './local/adapter.js';
import { createOpenAiCompatibleAdapter } from './openai-compatible/adapter.js';
import type { ProviderAdapter } from './types.js';

type AdapterFactory = (id: string, provider: ProviderConfig, httpClient: UpstreamHttpClient) => ProviderAdapter;

/** kind → factory: the one place a provider kind is registered (ARCHITECTURE "One seam per provider kind"). */
const FACTORIES: Record<string, AdapterFactory | undefined> = {
  local: (id) => createLocalAdapter(id),
  openai: (id, provider, httpClient) =>
    createOpenAiCompatibleAdapter(
      {
        id,
        baseUrl: provider.base_url!,
        apiKey: provider.api_key,
        headers: provider.headers,
        timeoutMs: provider.timeout_ms,
        vendor: provider.vendor,
        ...(provider.max_embedding_batch === undefined ? {} : { maxEmbeddingBatch: provider.max_embedding_batch }),
        ...(provider.rerank_top_field === undefined ? {} : { rerankTopField: provider.rerank_top_field }),
        responsesApi: provider.responses_api === true,
      },
      httpClient,
    ),
  anthropic: (id, provider, httpClient) =>
    createAnthropicAdapter({ id, baseUrl: provider.base_url!, apiKey: provider.api_key, headers: provider.headers, timeoutMs: provider.timeout_ms }, httpClient),
};

/** One adapter per configured, enabled provider; one keep-alive pool per upstream origin. */
export class ProviderRegistry {
  private readonly adapters = new Map<string, ProviderAdapter>();
  readonly httpClient = new UpstreamHttpClient();

  constructor(config: Config) {
    for (const [id, provider] of Object.entries(config.providers)) {
      if (!provider.enabled) continue;
      const factory = FACTORIES[provider.kind];
      if (factory !== undefined) this.adapters.set(id, factory(id, provider, this.httpClient));
    }
  }

  get(providerId: string): ProviderAdapter {
    const adapter = this.adapters.get(providerId);
    if (adapter === undefined) {
      throw new GatewayError('INFERENCE_3104', `Provider "${providerId}" is not available (its kind is not supported by this igw version, or it is disabled).`, {
        provider: providerId,
      });
    }
    return adapter;
  }

  async close(): Promise<void> {
    await Promise.all([...this.adapters.values()].map((adapter) => adapter.close?.()));
    await this.httpClient.close();
  }
}
