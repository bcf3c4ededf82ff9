import type { TestPostgres } from './postgres.js';
import { startTestGateway, type TestGateway } from './gateway.js';

/** Team mode for tests: `rawConfig` with the store on a fresh database of `postgres` (and Redis when given). */
export function teamConfig(rawConfig: Record<string, unknown>, databaseUrl: string, redisUrl?: string): Record<string, unknown> {
  return { ...rawConfig, store: { kind: 'postgres', url: databaseUrl }, ...(redisUrl === undefined ? {} : { redis: { url: redisUrl } }) };
}

/** `count` gateways (each with its own data dir) sharing one new database. */
export async function startTeam(postgres: TestPostgres, rawConfig: Record<string, unknown>, count = 2, redisUrl?: string): Promise<{ url: string; gateways: TestGateway[] }> {
  const url = await postgres.createDatabase();
  const gateways: TestGateway[] = [];
  for (let index = 0; index < count; index += 1) gateways.push(await startTestGateway(teamConfig(rawConfig, url, redisUrl)));
  return { url, gateways };
}

/** Polls until `check` holds (cross-instance changes arrive through the change feed, in milliseconds). */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 1000): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return Date.now() - started;
}
