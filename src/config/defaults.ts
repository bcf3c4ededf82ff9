import type { ConfigInput, ModelConfig, PlanConfig, ProviderConfig } from './schema.js';

/**
 * Built-in defaults (DESIGN §3): the `local` provider and its plain-algorithm models, so every
 * feature works offline with no config. These are algorithms, not language models.
 */

export const LOCAL_PROVIDER_ID = 'local';

export const BUILTIN_LOCAL_PROVIDER: ProviderConfig = {
  kind: 'local',
  enabled: true,
  vendor: 'generic',
  headers: {},
  timeout_ms: 60_000,
  // Runs on this machine; location unknown to igw ("ZZ" is the ISO code for "unknown").
  location: 'ZZ',
  pue: 1,
  renewable_percent: 0,
  carbon_g_per_kwh: 0,
  water_l_per_kwh: 0,
};

const localRoute = (upstreamModel: string) => ({
  provider: LOCAL_PROVIDER_ID,
  upstream_model: upstreamModel,
  priority: 1,
  // Free and on-box: valid under every flavor, so `local-echo:batch` etc. work offline.
  flavors: ['eco', 'free', 'speed', 'batch'] as Array<'eco' | 'free' | 'speed' | 'batch'>,
  // Plain algorithms on the local CPU: no pricing (free) and energy too small to meter.
  energy: {},
});

const common = {
  owned_by: 'igw',
  created: 1767225600,
  reasoning_type: 'non_reasoning' as const,
  reasoning_effort: null,
  knowledge_cutoff: null,
  release_date: '2026-01-01',
  modelhub_url: null,
  advanced: false,
};

export const BUILTIN_LOCAL_MODELS: Record<string, ModelConfig> = {
  'local-echo': {
    ...common,
    type: 'chat',
    context_length: 131_072,
    max_output_tokens: 4096,
    input_modalities: ['text'],
    output_modalities: ['text'],
    capabilities: { streaming: true, function_calling: true, vision: false, structured_output: true, json_schema: true, reasoning: false },
    routes: [localRoute('local-echo')],
  },
  'local-embed': {
    ...common,
    type: 'embeddings',
    context_length: 8192,
    max_output_tokens: null,
    input_modalities: ['text'],
    output_modalities: ['embeddings'],
    capabilities: { dimensions: true },
    dimensions: 384,
    routes: [localRoute('local-embed')],
  },
  'local-rerank': {
    ...common,
    type: 'reranker',
    context_length: 8192,
    max_output_tokens: null,
    input_modalities: ['text'],
    output_modalities: ['scores'],
    capabilities: {},
    routes: [localRoute('local-rerank')],
  },
  'local-image': {
    ...common,
    type: 'image',
    max_output_tokens: null,
    input_modalities: ['text'],
    output_modalities: ['image'],
    capabilities: {},
    image_sizes: ['256x256', '512x512', '1024x1024', '1792x1024', '1024x1792'],
    routes: [localRoute('local-image')],
  },
};

export const BUILTIN_PLANS: Record<string, PlanConfig> = {
  developer: { benefits: ['advanced_models', 'api_usage', 'studio_access'], requests_per_minute: 600, storage_free_gb: 1 },
  free: { benefits: [], requests_per_minute: 20, storage_free_gb: 1 },
};

export const DEFAULT_MESSAGE_TIER_MODEL = 'local-echo';

/** The starter written by `igw config init` (JSON with comments). */
export const STARTER_CONFIG = `{
  // igw configuration (JSON with comments). Check it with: igw config check
  // Strings may use \${NAME} to read environment variable NAME (keep secrets out of this file).
  "server": { "port": 8787, "host": "127.0.0.1", "cors_origins": [], "allow_private_urls": false },
  "billing": { "energy_units_per_eur": 1000 },
  "default_plan": "developer",
  "plans": {
    "developer": { "benefits": ["advanced_models", "api_usage", "studio_access"], "requests_per_minute": 600 },
    "free": { "benefits": [], "requests_per_minute": 20 }
  },
  // The built-in offline provider "local" (local-echo, local-embed, local-rerank, local-image) is
  // always present; disable it with "local": { "kind": "local", "enabled": false }.
  "providers": {
    // An OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp, LM Studio, Groq, Mistral, ...):
    // "openai": {
    //   "kind": "openai",
    //   "base_url": "https://api.openai.com/v1",
    //   "api_key": "\${OPENAI_API_KEY}",
    //   "timeout_ms": 60000,
    //   "location": "US", "pue": 1.2, "renewable_percent": 40, "carbon_g_per_kwh": 380, "water_l_per_kwh": 1.8
    // }
  },
  "models": {
    // "gpt-4o-mini": {
    //   "type": "chat", "owned_by": "openai", "context_length": 128000, "max_output_tokens": 16384,
    //   "input_modalities": ["text", "image"],
    //   "capabilities": { "streaming": true, "function_calling": true, "vision": true, "structured_output": true, "json_schema": true },
    //   "routes": [
    //     { "provider": "openai", "upstream_model": "gpt-4o-mini", "priority": 1, "flavors": ["speed", "batch"],
    //       "pricing": { "input_cost_per_million_eur": 0.14, "output_cost_per_million_eur": 0.55, "cache_read_cost_per_million_eur": 0.07 },
    //       "energy": { "wh_per_1k_input_tokens": 0.02, "wh_per_1k_output_tokens": 0.2 } }
    //   ]
    // }
  }
}
`;

export const DEFAULT_CONFIG_INPUT: ConfigInput = {};
