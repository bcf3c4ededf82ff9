import { z } from 'zod';

/** igw.config.json (DESIGN §2). Strict everywhere so a typo is an error, not a silent default. */

const nonNegative = z.number().finite().nonnegative();

export const pricingSchema = z
  .object({
    input_cost_per_million_eur: nonNegative.optional(),
    output_cost_per_million_eur: nonNegative.optional(),
    cache_read_cost_per_million_eur: nonNegative.optional(),
    image_cost_per_image_eur: nonNegative.optional(),
    audio_cost_per_minute_eur: nonNegative.optional(),
  })
  .strict();

export const energySchema = z
  .object({
    wh_per_1k_input_tokens: nonNegative.optional(),
    wh_per_1k_output_tokens: nonNegative.optional(),
    wh_per_image: nonNegative.optional(),
    wh_per_audio_minute: nonNegative.optional(),
  })
  .strict();

export const flavorSchema = z.enum(['eco', 'free', 'speed', 'batch']);

export const routeSchema = z
  .object({
    provider: z.string().min(1),
    upstream_model: z.string().min(1),
    priority: z.number().int().default(1),
    flavors: z.array(flavorSchema).default([]),
    pricing: pricingSchema.optional(),
    energy: energySchema.default({}),
  })
  .strict();

export const modelTypeSchema = z.enum(['chat', 'embeddings', 'image', 'audio', 'reranker', 'guardrail']);

export const capabilitiesSchema = z
  .object({
    streaming: z.boolean().optional(),
    function_calling: z.boolean().optional(),
    vision: z.boolean().optional(),
    structured_output: z.boolean().optional(),
    json_schema: z.boolean().optional(),
    audio_input: z.boolean().optional(),
    reasoning: z.boolean().optional(),
    /** Embedding models: whether `dimensions` (truncation) is accepted. */
    dimensions: z.boolean().optional(),
  })
  .strict();

export const modelSchema = z
  .object({
    type: modelTypeSchema,
    owned_by: z.string().default('igw'),
    created: z.number().int().nonnegative().default(0),
    context_length: z.number().int().positive().optional(),
    max_output_tokens: z.number().int().positive().nullable().default(null),
    input_modalities: z.array(z.string()).default(['text']),
    output_modalities: z.array(z.string()).default(['text']),
    capabilities: capabilitiesSchema.default({}),
    reasoning_type: z.enum(['reasoning', 'non_reasoning', 'hybrid']).default('non_reasoning'),
    reasoning_effort: z.enum(['low', 'medium', 'high']).nullable().default(null),
    knowledge_cutoff: z.string().nullable().default(null),
    release_date: z.string().nullable().default(null),
    modelhub_url: z.string().nullable().default(null),
    advanced: z.boolean().default(false),
    /** Embedding models: native vector size. Image models: accepted sizes. */
    dimensions: z.number().int().positive().optional(),
    image_sizes: z.array(z.string().regex(/^\d+x\d+$/)).optional(),
    routes: z.array(routeSchema).min(1),
  })
  .strict();

export const providerSchema = z
  .object({
    kind: z.enum(['openai', 'anthropic', 'local']),
    enabled: z.boolean().default(true),
    /**
     * Which OpenAI-compatible server this is, for its quirks (parameters it refuses, field
     * names it expects). `generic` forwards everything as the client sent it.
     */
    vendor: z.enum(['generic', 'openai', 'azure', 'groq', 'mistral', 'deepseek', 'ollama', 'vllm', 'llama-cpp', 'lmstudio', 'openrouter', 'together', 'xai']).default('generic'),
    base_url: z.string().url().optional(),
    api_key: z.string().optional(),
    headers: z.record(z.string(), z.string()).default({}),
    timeout_ms: z.number().int().positive().default(60_000),
    /**
     * Kind `openai`: most embedding inputs per upstream call. Larger arrays are split into
     * consecutive calls (order kept, usage summed). Default 2048 for vendor `openai`, else 512.
     */
    max_embedding_batch: z.number().int().positive().optional(),
    /** Kind `openai`: the rerank body's result-count field; `top_k` for Voyage, else `top_n` (default). */
    rerank_top_field: z.enum(['top_n', 'top_k']).optional(),
    /**
     * Kind `openai`: the server also speaks the OpenAI Responses API (`POST {base_url}/responses`),
     * so /v1/responses requests with hosted tools (web_search) can be passed to it natively.
     */
    responses_api: z.boolean().optional(),
    location: z.string().min(2).default('ZZ'),
    pue: z.number().finite().min(1).default(1.2),
    renewable_percent: z.number().finite().min(0).max(100).default(0),
    carbon_g_per_kwh: nonNegative.default(400),
    water_l_per_kwh: nonNegative.default(1.8),
  })
  .strict()
  .superRefine((provider, context) => {
    if (provider.kind !== 'local' && provider.base_url === undefined) {
      context.addIssue({ code: 'custom', path: ['base_url'], message: `base_url is required for a provider of kind "${provider.kind}"` });
    }
    if (provider.responses_api === true && provider.kind !== 'openai') {
      context.addIssue({ code: 'custom', path: ['responses_api'], message: `responses_api applies only to providers of kind "openai" (this one is "${provider.kind}")` });
    }
  });

const balanceSchema = z.union([z.literal('unlimited'), z.string().regex(/^-?\d+(\.\d+)?$/), z.number().finite()]);

export const planSchema = z
  .object({
    benefits: z.array(z.enum(['advanced_models', 'api_usage', 'studio_access'])).default([]),
    requests_per_minute: z.number().int().positive().default(600),
    /** Vector-store storage included free (time-weighted GB per day); above it storage is charged to credits. */
    storage_free_gb: nonNegative.default(1),
  })
  .strict();

const mcpServerCommon = {
  /** Only these tools of the server are offered (absent: all of them). */
  allowed_tools: z.array(z.string().min(1)).optional(),
  /** How long one tool call (or listing) may take before it fails with INFERENCE_3107. */
  timeout_ms: z.number().int().positive().default(30_000),
};

/** DESIGN §7: a remote MCP server over Streamable HTTP, or a local one igw starts over stdio. */
export const mcpServerSchema = z.union([
  z.object({ url: z.string().url(), headers: z.record(z.string(), z.string()).default({}), ...mcpServerCommon }).strict(),
  z.object({ command: z.string().min(1), args: z.array(z.string()).default([]), env: z.record(z.string(), z.string()).default({}), cwd: z.string().min(1).optional(), ...mcpServerCommon }).strict(),
]);

/**
 * DESIGN §4 "Team mode": where keys, accounts and balances and the request log live. `json` (the
 * default) is the data dir; `postgres` shares them between several `igw serve` instances.
 */
export const storeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('json') }).strict(),
  z
    .object({
      kind: z.literal('postgres'),
      url: z
        .string()
        .min(1)
        .refine((url) => /^postgres(ql)?:\/\//.test(url), 'a PostgreSQL URL starts with postgres:// or postgresql:// (e.g. "${DATABASE_URL}")'),
    })
    .strict(),
]);

/** DESIGN §4 "Team mode": per-key rate limits and route health shared through Redis (absent: in memory). */
export const redisSchema = z
  .object({
    url: z
      .string()
      .min(1)
      .refine((url) => /^rediss?:\/\//.test(url), 'a Redis URL starts with redis:// or rediss:// (e.g. "${REDIS_URL}")'),
  })
  .strict();

export const configSchema = z
  .object({
    $schema: z.string().optional(),
    server: z
      .object({
        port: z.number().int().min(0).max(65535).default(8787),
        host: z.string().min(1).default('127.0.0.1'),
        cors_origins: z.array(z.string()).default([]),
        allow_private_urls: z.boolean().default(false),
        max_body_bytes: z.number().int().positive().default(20 * 1024 * 1024),
        shutdown_grace_ms: z.number().int().nonnegative().default(10_000),
        /** Image URLs in chat messages are fetched by igw and re-encoded as data URIs within these limits. */
        image_fetch_max_bytes: z.number().int().positive().default(20 * 1024 * 1024),
        image_fetch_timeout_ms: z.number().int().positive().default(10_000),
        /**
         * DESIGN §5: request fields igw does not know are forwarded (native pass-through) or dropped
         * and named in igw-ignored-params (translation); true refuses them by name instead (typo detection).
         */
        strict_params: z.boolean().default(false),
        /** Issue 19: `GET /metrics` in Prometheus text format, without a key (off: 404). */
        metrics: z.boolean().default(false),
      })
      .strict()
      .default({
        port: 8787,
        host: '127.0.0.1',
        cors_origins: [],
        allow_private_urls: false,
        max_body_bytes: 20 * 1024 * 1024,
        shutdown_grace_ms: 10_000,
        image_fetch_max_bytes: 20 * 1024 * 1024,
        image_fetch_timeout_ms: 10_000,
        strict_params: false,
        metrics: false,
      }),
    billing: z
      .object({
        energy_units_per_eur: z.number().finite().positive().default(1000),
        initial_energy: balanceSchema.default('unlimited'),
        initial_credits: balanceSchema.default('unlimited'),
        /** Vector-store storage price per GB-day above the plan's free allowance (OpenAI: $0.10, ≈ €0.09). */
        storage_eur_per_gb_day: nonNegative.default(0.09),
        /** Days an account may stay below zero credits before its vector stores are removed. */
        storage_grace_days: nonNegative.default(7),
      })
      .strict()
      .default({ energy_units_per_eur: 1000, initial_energy: 'unlimited', initial_credits: 'unlimited', storage_eur_per_gb_day: 0.09, storage_grace_days: 7 }),
    vector_stores: z
      .object({
        embedding_model: z.string().default('local-embed'),
        /** A catalog model of type reranker: when set, store searches rerank their fused candidates with it. */
        reranker: z.string().min(1).optional(),
        /** Team mode: an ingestion job's lease; a job whose instance died is taken over once it runs out (issue 19 item 2). */
        ingest_lease_ms: z.number().int().min(100).default(30_000),
      })
      .strict()
      .default({ embedding_model: 'local-embed', ingest_lease_ms: 30_000 }),
    /** Largest file accepted by POST /v1/files (the hosted API's per-file limit by default). */
    files: z
      .object({ max_upload_bytes: z.number().int().positive().default(512 * 1024 * 1024) })
      .strict()
      .default({ max_upload_bytes: 512 * 1024 * 1024 }),
    batches: z
      .object({
        concurrency: z.number().int().positive().default(8),
        max_requests_per_file: z.number().int().positive().default(50_000),
        /**
         * Team mode: how long a row claimed by an instance stays its own without a renewal (renewed
         * every third of it while the row runs); a dead instance's rows are taken over after it.
         */
        lease_seconds: z.number().positive().default(30),
      })
      .strict()
      .default({ concurrency: 8, max_requests_per_file: 50_000, lease_seconds: 30 }),
    store: storeSchema.default({ kind: 'json' }),
    redis: redisSchema.optional(),
    default_plan: z.string().default('developer'),
    plans: z.record(z.string(), planSchema).default({}),
    /**
     * Message-style model mapping: a requested model containing a tier name (case-insensitive)
     * runs that tier's model. The names are the keys, so they are configurable; default opus,
     * sonnet and haiku.
     */
    message_tiers: z.record(z.string().min(1).regex(/^[^:]+$/, 'a tier name may not contain ":"'), z.string().min(1)).optional(),
    providers: z.record(z.string(), providerSchema).default({}),
    models: z.record(z.string(), modelSchema).default({}),
    /** MCP servers exposed at /v1/mcp/{name} and in /v1/tools (`igw` is igw's own server). */
    mcp_servers: z
      .record(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,62}$/, 'an MCP server name is letters, digits and dashes').refine((name) => name !== 'igw', 'the name "igw" is igw\'s own MCP server'), mcpServerSchema)
      .default({}),
  })
  .strict();

export type ConfigInput = z.input<typeof configSchema>;
export type ParsedConfig = z.output<typeof configSchema>;
export type ProviderConfig = z.output<typeof providerSchema>;
export type ModelConfig = z.output<typeof modelSchema>;
export type RouteConfig = z.output<typeof routeSchema>;
export type PlanConfig = z.output<typeof planSchema>;
export type Pricing = z.output<typeof pricingSchema>;
export type EnergyFigures = z.output<typeof energySchema>;
export type Flavor = z.output<typeof flavorSchema>;
export type ModelType = z.output<typeof modelTypeSchema>;
export type Balance = z.output<typeof balanceSchema>;
export type StoreConfig = z.output<typeof storeSchema>;
export type RedisConfig = z.output<typeof redisSchema>;
export type McpServerConfig = z.output<typeof mcpServerSchema>;
