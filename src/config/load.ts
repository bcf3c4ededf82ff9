import { readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { closestMatch } from '../util/did-you-mean.js';
import { knownKeysAt } from './known-keys.js';
import { describeIssue, type IssueLike } from '../endpoints/validation/issue-text.js';
import { configSchema, type ParsedConfig } from './schema.js';
import { BUILTIN_LOCAL_MODELS, BUILTIN_LOCAL_PROVIDER, BUILTIN_PLANS, DEFAULT_MESSAGE_TIER_MODEL, LOCAL_PROVIDER_ID } from './defaults.js';

/** One problem in a config file, located by its JSON path (`$.providers.openai.base_url`). */
export interface ConfigIssue {
  path: string;
  message: string;
}

export interface Config extends ParsedConfig {
  /** Absolute path of the file this came from; null for the built-in defaults. */
  source: string | null;
  /** How `source` was found (set by loadConfig). */
  found_by?: ConfigFoundBy;
  message_tiers: Record<string, string>;
}

export class ConfigError extends Error {
  /** How the file was found (set by loadConfig), so a report can say why this file was read. */
  foundBy: ConfigFoundBy | undefined;

  constructor(
    readonly source: string | null,
    readonly issues: ConfigIssue[],
  ) {
    super(`${source ?? 'config'} has ${issues.length} problem${issues.length === 1 ? '' : 's'}:\n${issues.map((issue) => `  ${issue.path}: ${issue.message}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function formatJsonPath(segments: ReadonlyArray<PropertyKey>): string {
  let result = '$';
  for (const segment of segments) {
    if (typeof segment === 'number') result += `[${segment}]`;
    else if (typeof segment === 'string' && /^[A-Za-z_$][\w$]*$/.test(segment)) result += `.${segment}`;
    else result += `[${JSON.stringify(String(segment))}]`;
  }
  return result;
}

/** ` (did you mean "port"?)` after an unknown name in a config problem, or ''. */
function suggestion(typed: string, known: Iterable<string>): string {
  const match = closestMatch(typed, known);
  return match === undefined ? '' : ` (did you mean "${match}"?)`;
}

/** Where the config file came from, as `igw serve` and `igw config check` report it (DESIGN §1). */
export type ConfigFoundBy = '--config' | 'IGW_CONFIG' | './igw.config.json' | '$XDG_CONFIG_HOME/igw/config.json' | '~/.config/igw/config.json';

export interface ConfigLocation {
  path: string;
  foundBy: ConfigFoundBy;
}

/**
 * Picks the config file (DESIGN §1): `--config`, then `IGW_CONFIG`, then `./igw.config.json`,
 * then `$XDG_CONFIG_HOME/igw/config.json` (else `~/.config/igw/config.json`); null means the
 * built-in defaults. An explicit path is returned even when missing (reading it reports that).
 */
export async function resolveConfigPath(flag: string | undefined, env: NodeJS.ProcessEnv, cwd: string): Promise<ConfigLocation | null> {
  if (flag !== undefined && flag !== '') return { path: path.resolve(cwd, flag), foundBy: '--config' };
  const fromEnv = env['IGW_CONFIG'];
  if (fromEnv !== undefined && fromEnv !== '') return { path: path.resolve(cwd, fromEnv), foundBy: 'IGW_CONFIG' };
  const xdg = env['XDG_CONFIG_HOME'];
  // The XDG spec ignores a relative XDG_CONFIG_HOME.
  const userConfig: ConfigLocation =
    xdg !== undefined && path.isAbsolute(xdg)
      ? { path: path.join(xdg, 'igw', 'config.json'), foundBy: '$XDG_CONFIG_HOME/igw/config.json' }
      : { path: path.join(env['HOME'] || homedir(), '.config', 'igw', 'config.json'), foundBy: '~/.config/igw/config.json' };
  for (const candidate of [{ path: path.join(cwd, 'igw.config.json'), foundBy: './igw.config.json' } as const, userConfig]) {
    if (await isFile(candidate.path)) return candidate;
  }
  return null;
}

async function isFile(candidate: string): Promise<boolean> {
  try {
    return (await stat(candidate)).isFile();
  } catch {
    return false;
  }
}

/** "/home/me/.config/igw/config.json (found by $XDG_CONFIG_HOME/igw/config.json)": what serve and config check print. */
export function describeConfigSource(config: Pick<Config, 'source' | 'found_by'>): string {
  if (config.source === null) return 'no config file (built-in defaults)';
  return config.found_by === undefined ? config.source : `${config.source} (from ${config.found_by})`;
}

/** Replaces "${NAME}" in every string with the environment variable; a missing one is an issue. */
export function interpolateEnv(value: unknown, env: NodeJS.ProcessEnv, issues: ConfigIssue[], at: PropertyKey[] = []): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, name: string) => {
      const found = env[name];
      if (found === undefined) {
        issues.push({ path: formatJsonPath(at), message: `environment variable ${name} is not set (export it, or remove the reference)` });
        return '';
      }
      return found;
    });
  }
  if (Array.isArray(value)) return value.map((item, index) => interpolateEnv(item, env, issues, [...at, index]));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolateEnv(item, env, issues, [...at, key])]));
  }
  return value;
}

/** Validates raw JSON-with-comments text and returns a full config, or throws ConfigError with every issue. */
export function parseConfigText(text: string, source: string | null, env: NodeJS.ProcessEnv): Config {
  const parseErrors: ParseError[] = [];
  const raw: unknown = parseJsonc(text, parseErrors, { allowTrailingComma: true, disallowComments: false });
  if (parseErrors.length > 0) {
    throw new ConfigError(
      source,
      parseErrors.map((error) => ({ path: `${lineAndColumn(text, error.offset)}`, message: `not valid JSON (${printParseErrorCode(error.error)})` })),
    );
  }
  return buildConfig(raw ?? {}, source, env);
}

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}

export function buildConfig(raw: unknown, source: string | null, env: NodeJS.ProcessEnv): Config {
  const issues: ConfigIssue[] = [];
  const interpolated = interpolateEnv(raw, env, issues);
  const parsed = configSchema.safeParse(interpolated);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      // zod reports unknown keys on their parent object; name each key itself.
      if (issue.code === 'unrecognized_keys') {
        const known = knownKeysAt(configSchema, issue.path);
        for (const key of issue.keys) issues.push({ path: formatJsonPath([...issue.path, key]), message: `unknown key "${key}"${suggestion(key, known)}` });
      } else {
        const described = describeIssue(issue as IssueLike, interpolated);
        issues.push({ path: formatJsonPath(described.path), message: described.text });
      }
    }
  }
  issues.push(...referenceIssues(interpolated));
  if (issues.length > 0 || !parsed.success) throw new ConfigError(source, issues);
  const config = withBuiltins(parsed.data, source, userLocalKeys(interpolated));
  return config;
}

/** The keys the user actually wrote under providers.local (schema defaults must not override the built-in ones). */
function userLocalKeys(raw: unknown): string[] {
  const providers = (raw as { providers?: Record<string, unknown> } | null)?.providers;
  const local = providers?.[LOCAL_PROVIDER_ID];
  return local !== null && typeof local === 'object' ? Object.keys(local) : [];
}

function withBuiltins(parsed: ParsedConfig, source: string | null, localKeys: string[]): Config {
  const userLocal = parsed.providers[LOCAL_PROVIDER_ID];
  const localEnabled = userLocal === undefined ? true : userLocal.enabled;
  const localOverrides = userLocal === undefined ? {} : Object.fromEntries(localKeys.map((key) => [key, userLocal[key as keyof typeof userLocal]]));
  const providers = { [LOCAL_PROVIDER_ID]: { ...BUILTIN_LOCAL_PROVIDER, ...localOverrides }, ...withoutKey(parsed.providers, LOCAL_PROVIDER_ID) };
  const models = { ...(localEnabled ? BUILTIN_LOCAL_MODELS : {}), ...parsed.models };
  const firstChat = Object.entries(models).find(([, model]) => model.type === 'chat')?.[0] ?? DEFAULT_MESSAGE_TIER_MODEL;
  return {
    ...parsed,
    source,
    providers,
    models,
    plans: { ...BUILTIN_PLANS, ...parsed.plans },
    message_tiers: parsed.message_tiers ?? { opus: firstChat, sonnet: firstChat, haiku: firstChat },
  };
}

function withoutKey<T>(record: Record<string, T>, key: string): Record<string, T> {
  const { [key]: _dropped, ...rest } = record;
  return rest;
}

type Loose = Record<string, unknown>;

function asRecord(value: unknown): Loose {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Loose) : {};
}

/**
 * Checks that names refer to things that exist (routes → providers, plans, tiers, embedding
 * model). It reads the raw (interpolated) object leniently, so these problems are reported
 * together with schema problems rather than hidden behind them.
 */
function referenceIssues(raw: unknown): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const root = asRecord(raw);
  const userProviders = asRecord(root['providers']);
  const localEnabled = asRecord(userProviders[LOCAL_PROVIDER_ID])['enabled'] !== false;
  const providerIds = new Set([LOCAL_PROVIDER_ID, ...Object.keys(userProviders)]);
  const models: Loose = { ...(localEnabled ? BUILTIN_LOCAL_MODELS : {}), ...asRecord(root['models']) };
  for (const [modelId, model] of Object.entries(asRecord(root['models']))) {
    if (modelId.includes(':')) issues.push({ path: formatJsonPath(['models', modelId]), message: 'a model id may not contain ":" (it separates the flavor suffix)' });
    const routes = asRecord(model)['routes'];
    (Array.isArray(routes) ? routes : []).forEach((route, index) => {
      const provider = asRecord(route)['provider'];
      if (typeof provider === 'string' && !providerIds.has(provider)) {
        issues.push({ path: formatJsonPath(['models', modelId, 'routes', index, 'provider']), message: `unknown provider "${provider}"${suggestion(provider, providerIds)} (define it under "providers")` });
      }
    });
  }
  const plans = new Set([...Object.keys(BUILTIN_PLANS), ...Object.keys(asRecord(root['plans']))]);
  const defaultPlan = root['default_plan'];
  if (typeof defaultPlan === 'string' && !plans.has(defaultPlan)) {
    issues.push({ path: '$.default_plan', message: `unknown plan "${defaultPlan}"${suggestion(defaultPlan, plans)} (define it under "plans")` });
  }
  // Default tiers point at the first chat model (or none): only tiers the user wrote are checked.
  for (const [tier, modelId] of Object.entries(asRecord(root['message_tiers']))) {
    if (typeof modelId === 'string' && models[modelId] === undefined) issues.push({ path: formatJsonPath(['message_tiers', tier]), message: `unknown model "${modelId}"${suggestion(modelId, Object.keys(models))}` });
  }
  const embeddingId = asRecord(root['vector_stores'])['embedding_model'];
  if (typeof embeddingId === 'string') {
    const type = asRecord(models[embeddingId])['type'];
    if (type !== undefined && type !== 'embeddings') issues.push({ path: '$.vector_stores.embedding_model', message: `model "${embeddingId}" is of type ${String(type)}, not embeddings` });
  }
  const rerankerId = asRecord(root['vector_stores'])['reranker'];
  if (typeof rerankerId === 'string') {
    const type = asRecord(models[rerankerId])['type'];
    if (models[rerankerId] === undefined) issues.push({ path: '$.vector_stores.reranker', message: `unknown model "${rerankerId}" (define it under "models", or use local-rerank)` });
    else if (type !== 'reranker') issues.push({ path: '$.vector_stores.reranker', message: `model "${rerankerId}" is of type ${String(type)}, not reranker` });
  }
  return issues;
}

/** --config > IGW_CONFIG > ./igw.config.json > $XDG_CONFIG_HOME/igw/config.json > built-in defaults. */
export async function loadConfig(options: { configPath?: string | undefined; env: NodeJS.ProcessEnv; cwd: string }): Promise<Config> {
  const location = await resolveConfigPath(options.configPath, options.env, options.cwd);
  if (location === null) return buildConfig({}, null, options.env);
  let text: string;
  try {
    text = await readFile(location.path, 'utf8');
  } catch (error) {
    throw new ConfigError(location.path, [{ path: '$', message: `cannot read the file (${(error as NodeJS.ErrnoException).code ?? String(error)}); check ${location.foundBy}` }]);
  }
  try {
    return { ...parseConfigText(text, location.path, options.env), found_by: location.foundBy };
  } catch (error) {
    if (error instanceof ConfigError) error.foundBy = location.foundBy;
    throw error;
  }
}
