// What the gateway bench and its profiler share: the loopback fake upstream, an igw data dir and
// config that route the bench models to it (rate limit out of the way), a key, and the request
// bodies of the three scenarios.
import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { firstLine } from './process.mjs';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Starts the fake upstream; returns the child and its origin. */
export async function startFakeUpstream() {
  const upstream = spawn(process.execPath, [path.join(root, 'bench/fake-upstream.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
  return { upstream, upstreamOrigin: `http://127.0.0.1:${Number(await firstLine(upstream))}` };
}

/**
 * A temp data dir and config pointing igw at the upstream, and a key made by `igw keys create`.
 * `overrides` are added to the config (team mode's store and redis; more plans beside developer).
 */
export async function prepareGateway(upstreamOrigin, prefix, overrides = {}) {
  const workDir = await mkdtemp(path.join(tmpdir(), prefix));
  const configPath = path.join(workDir, 'igw.config.json');
  await writeFile(
    configPath,
    JSON.stringify({
      ...overrides,
      plans: { developer: { benefits: ['advanced_models', 'api_usage', 'studio_access'], requests_per_minute: 100000000 }, ...overrides.plans },
      providers: { bench: { kind: 'openai', base_url: `${upstreamOrigin}/v1`, api_key: 'bench' } },
      models: {
        'bench-model': { type: 'chat', capabilities: { streaming: true }, context_length: 128000, routes: [{ provider: 'bench', upstream_model: 'bench-model', pricing: { input_cost_per_million_eur: 0.14, output_cost_per_million_eur: 0.55 }, energy: { wh_per_1k_input_tokens: 0.02, wh_per_1k_output_tokens: 0.2 } }] },
        'bench-embed': { type: 'embeddings', context_length: 8192, routes: [{ provider: 'bench', upstream_model: 'bench-embed', pricing: { input_cost_per_million_eur: 0.02 }, energy: { wh_per_1k_input_tokens: 0.001 } }] },
      },
    }),
  );
  const env = { ...process.env, IGW_DATA_DIR: path.join(workDir, 'data'), IGW_CONFIG: configPath };
  const key = await firstLine(spawn(process.execPath, [path.join(root, 'bin/igw.js'), 'keys', 'create', '--name', 'bench'], { env, stdio: ['ignore', 'pipe', 'ignore'] }));
  return { workDir, env, key };
}

const chat = (stream) => JSON.stringify({ model: 'bench-model', stream, messages: [{ role: 'user', content: 'Say something about foxes.' }] });

/** The three scenarios: path and body. */
export const SCENARIOS = {
  chat: { name: 'chat', pathName: '/v1/chat/completions', body: chat(false) },
  stream: { name: 'chat stream', pathName: '/v1/chat/completions', body: chat(true) },
  embeddings: { name: 'embeddings', pathName: '/v1/embeddings', body: JSON.stringify({ model: 'bench-embed', input: 'foxes are quick' }) },
};
