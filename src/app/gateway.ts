import { rm } from 'node:fs/promises';
import path from 'node:path';
import { RateLimiter } from '../auth/rate-limit.js';
import { Ledger } from '../billing/ledger.js';
import { fileSettlementState } from '../billing/settlement-state.js';
import { StorageSettlement } from '../billing/storage-settlement.js';
import { UpstreamMcpServers } from '../mcp/upstream-servers.js';
import { VERSION } from '../util/version.js';
import { BatchService } from '../batches/batch-service.js';
import type { Batches } from '../batches/batches-port.js';
import { Catalog } from '../catalog/catalog.js';
import { loadDataKey } from '../crypto/data-key.js';
import { FileStore } from '../files/file-store.js';
import { describeConfigSource, type Config } from '../config/load.js';
import { adminOperations } from '../control/admin-operations.js';
import { controlSocketPath } from '../control/socket-path.js';
import { startControlServer } from '../control/socket-server.js';
import { batchExecutes } from '../endpoints/batch-executes.js';
import { startHttpServer } from '../http/server.js';
import { PUBLIC_ROUTES, ROUTES } from '../http/routes.js';
import { ProviderRegistry } from '../providers/registry.js';
import { RouteHealth } from '../routing/health.js';
import { ensureDataDir } from '../store/db.js';
import { acquireLock } from '../store/lock.js';
import { openStore } from '../store/store.js';
import type { RequestLogEntry } from '../store/request-log.js';
import { systemClock, type Clock } from '../util/clock.js';
import { randomIds, type IdGenerator } from '../util/ids.js';
import { systemTimers, type Timers } from '../util/timers.js';
import { createJsonLogger, type Logger } from '../util/logger.js';
import { documentTools } from '../vector-stores/default-document-tools.js';
import { embedTexts } from '../vector-stores/embedder.js';
import { openLocalBacking } from '../vector-stores/backing.js';
import { VectorStoreService } from '../vector-stores/service.js';
import { vectorStoreStorage } from '../vector-stores/storage-usage.js';
import { Activity } from './activity.js';
import { GatewayMetrics } from '../metrics/gateway-metrics.js';
import type { AppContext } from './context.js';

export interface GatewayOptions {
  dataDir: string;
  config: Config;
  /** Overrides config.server.port / host (0 = any free port). */
  port?: number;
  host?: string;
  logger?: Logger;
  clock?: Clock;
  /** Timers for background jobs (storage settlement); tests pass manual ones with their clock. */
  timers?: Timers;
  ids?: IdGenerator;
  /** Where IGW_DATA_KEY is read from (process.env by default). */
  env?: NodeJS.ProcessEnv;
}

export interface Gateway {
  url: string;
  port: number;
  host: string;
  app: AppContext;
  /** Graceful stop: refuse new work, finish in-flight requests (bounded), flush state, release the lock. */
  close(): Promise<void>;
}

/** Composition root: builds store, providers, routing, billing and the HTTP server from a Config. */
export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const logger = options.logger ?? createJsonLogger();
  await ensureDataDir(options.dataDir);
  const lock = await acquireLock(options.dataDir, 'igw serve');
  const cleanups: Array<() => Promise<void>> = [() => lock.release()];
  // A start that failed (port in use…) never said "gateway started": it does not say "stopped" either.
  let started = false;
  const cleanUp = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((error: unknown) => logger.error('shutdown step failed', { error: String(error) }));
    if (started) logger.info('gateway stopped', { data_dir: options.dataDir });
  };
  try {
    // Uploads in flight when a previous server died are orphans now (we hold the lock).
    await rm(path.join(options.dataDir, 'tmp'), { recursive: true, force: true });
    // Team mode: one key on every instance (IGW_DATA_KEY), checked against the team's database.
    const dataKey = await loadDataKey(options.dataDir, options.env ?? process.env, (hint) => logger.warn(hint), { team: options.config.store.kind === 'postgres' });
    const store = await openStore(options.dataDir, options.config.store, logger, dataKey);
    cleanups.push(() => store.close());
    const providers = new ProviderRegistry(options.config);
    cleanups.push(() => providers.close());
    const clock = options.clock ?? systemClock;
    const ids = options.ids ?? randomIds;
    // Team mode's modules load only in team mode (team-parts.ts).
    const team = 'pool' in store ? await import('./team-parts.js') : null;
    const vectorStoreBacking =
      team !== null && 'pool' in store && options.config.store.kind === 'postgres'
        ? await team.openTeamBacking({ pool: store.pool, collections: store.collections, url: options.config.store.url, dataDir: options.dataDir, dataKey, leaseMs: options.config.vector_stores.ingest_lease_ms, logger })
        : await openLocalBacking(options.dataDir, dataKey);
    const vectorStores = VectorStoreService.open({ backing: vectorStoreBacking, clock, ids, logger });
    cleanups.push(() => vectorStores.close());
    // Team mode: file records and bytes in PostgreSQL, so every instance serves every file.
    const files = team !== null && 'pool' in store ? await FileStore.openTeam(store.collections, new team.PostgresFileBytes(store.pool), dataKey, clock, ids) : await FileStore.open(options.dataDir, dataKey, clock, ids);
    cleanups.push(() => files.close());
    const batchDeps = { config: options.config, files, key: dataKey, clock, ids, logger };
    // Team mode: batches and their rows in PostgreSQL, run by every instance under leases (issue 19).
    const batches: Batches = team !== null && 'pool' in store ? new team.TeamBatchService({ ...batchDeps, pool: store.pool }) : await BatchService.open({ ...batchDeps, dataDir: options.dataDir });
    // Before the store closes: rows in flight stop and the batch records are saved.
    cleanups.push(() => batches.close());
    const mcpServers = new UpstreamMcpServers(options.config.mcp_servers, logger, VERSION);
    // After the HTTP server stopped (cleanups run in reverse): local MCP servers are stopped last.
    cleanups.push(() => mcpServers.close());
    const routeHealth = new RouteHealth(clock);
    // Team mode: rate limits and route cooldowns in Redis when the config names one.
    const sharedLimits = options.config.redis === undefined ? null : await (await import('../store/redis/shared-limits.js')).openSharedLimits(options.config.redis.url, routeHealth, logger);
    if (sharedLimits !== null) cleanups.push(() => sharedLimits.close());
    const app: AppContext = {
      config: options.config,
      store,
      catalog: new Catalog(options.config),
      providers,
      routeHealth,
      ledger: new Ledger(options.config, store.accounts),
      rateLimiter: sharedLimits?.rateLimiter ?? new RateLimiter(),
      clock,
      ids,
      logger,
      dataKey,
      vectorStores,
      files,
      batches,
      mcpServers,
      activity: new Activity(() => clock.now()),
    };
    // The dashboard and the request lines of `igw serve` show keys by name.
    app.activity.nameKeys((id) => store.keys.get(id)?.name);
    if (options.config.server.metrics) {
      const paths = [...ROUTES.map((route) => route.path), ...Object.keys(PUBLIC_ROUTES).map((route) => route.split(' ')[1]!)];
      const metrics = new GatewayMetrics(app.activity, new Set(paths), logger);
      // Stored work by state, where the store counts it (team mode batches: every instance's rows).
      if (batches.rowCounts !== undefined) metrics.countWork('batch_row', { countByState: async () => ({ ...(await batches.rowCounts!()) }) });
      metrics.countWork('ingestion_job', { countByState: () => vectorStores.jobCounts() });
      app.routeHealth.observeFailedAttempts((key, code) => metrics.upstreamFailure(key, code));
      app.metrics = metrics;
    }
    // Services get narrow ports, never the app context (ARCHITECTURE principle 7): ingestion embeds
    // through the inference pipeline (vector-stores/embedder.ts), batch rows run each endpoint's
    // execute (no HTTP) with their request-log lines going where a live request's do.
    await vectorStores.start({
      embed: (accountId, modelId, texts, embedOptions) => embedTexts(app, accountId, modelId, texts, embedOptions),
      files,
      tools: documentTools(options.config.server.allow_private_urls),
      tasks: app.activity,
    });
    const recordLog = (entry: RequestLogEntry) => {
      store.requestLog.append(entry);
      app.activity.recordRequest(entry);
    };
    batches.start({ executes: batchExecutes({ ...app, accounts: store.accounts, vault: store.vault, recordLog }), tasks: app.activity });
    const storageSettlement = StorageSettlement.open({
      state: team !== null && 'pool' in store ? team.postgresSettlementState(store.pool) : await fileSettlementState(options.dataDir),
      config: options.config,
      accounts: store.accounts,
      ledger: app.ledger,
      requestLog: store.requestLog,
      storage: vectorStoreStorage(vectorStores),
      clock,
      timers: options.timers ?? systemTimers,
      ids,
      logger,
    });
    // Closes before the vector stores and the balance journal, so its last save sees both.
    cleanups.push(() => storageSettlement.close());
    await storageSettlement.start();
    const control = await startControlServer(controlSocketPath(options.dataDir), adminOperations(store, options.config), logger);
    cleanups.push(() => control.close());
    const http = await startHttpServer(app, ROUTES, options.port ?? options.config.server.port, options.host ?? options.config.server.host);
    cleanups.push(() => http.close(options.config.server.shutdown_grace_ms));
    started = true;
    logger.info('gateway started', {
      url: http.url,
      data_dir: options.dataDir,
      config: describeConfigSource(options.config),
      providers: Object.entries(options.config.providers).filter(([, provider]) => provider.enabled).map(([id, provider]) => `${id} (${provider.kind})`),
      models: app.catalog.activeModels().length,
    });
    let closing: Promise<void> | undefined;
    return {
      url: http.url,
      port: http.port,
      host: http.host,
      app,
      close: () => (closing ??= cleanUp()),
    };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}
