import { homedir } from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig, type Config } from '../config/load.js';
import { givenCredential, LocalCliCredential, type ApiCredential } from '../client/credential.js';
import { plural } from './format.js';
import { ProblemsError, UserError } from './user-error.js';

export interface GlobalOptions {
  dataDir?: string;
  config?: string;
  baseUrl?: string;
  apiKey?: string;
}

/** flag > env > default (DESIGN §1). */
export function resolveDataDir(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env): string {
  const explicit = options.dataDir ?? env['IGW_DATA_DIR'];
  if (explicit !== undefined && explicit !== '') return path.resolve(explicit);
  const xdg = env['XDG_DATA_HOME'];
  return path.join(xdg !== undefined && xdg !== '' ? xdg : path.join(homedir(), '.local', 'share'), 'igw');
}

export function resolveBaseUrl(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env): string {
  return (options.baseUrl ?? env['IGW_BASE_URL'] ?? 'http://127.0.0.1:8787').replace(/\/+$/, '');
}

/**
 * --api-key > IGW_API_KEY > the CLI's own key of the local data dir (DESIGN §1), obtained on the
 * first request and never printed.
 */
export function resolveApiKey(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env): ApiCredential {
  const key = options.apiKey ?? env['IGW_API_KEY'];
  if (key !== undefined && key !== '') return givenCredential(key);
  return new LocalCliCredential(resolveDataDir(options, env), resolveBaseUrl(options, env), () => loadCliConfig(options));
}

/** Loads the config or turns its problems into a user error listing each with its JSON path. */
export async function loadCliConfig(options: GlobalOptions): Promise<Config> {
  try {
    return await loadConfig({ configPath: options.config, env: process.env, cwd: process.cwd() });
  } catch (error) {
    if (error instanceof ConfigError) {
      // Each problem on its own line, then one sentence: not the error's multi-line message inside `igw: …;`.
      const problems = error.issues.map((issue) => `${issue.path}: ${issue.message}`);
      throw new ProblemsError(problems, `${plural(problems.length, 'problem')} in ${error.source ?? 'the config'}`, 'fix them and run the command again (igw config check lists them too)');
    }
    throw error;
  }
}
