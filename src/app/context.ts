import type { Activity } from './activity.js';
import type { RequestRateLimiter } from '../auth/rate-limit.js';
import type { Ledger } from '../billing/ledger.js';
import type { Catalog } from '../catalog/catalog.js';
import type { Batches } from '../batches/batches-port.js';
import type { Config } from '../config/load.js';
import type { FileStore } from '../files/file-store.js';
import type { UpstreamMcpServers } from '../mcp/upstream-servers.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { RouteHealth } from '../routing/health.js';
import type { Store } from '../store/store.js';
import type { Clock } from '../util/clock.js';
import type { IdGenerator } from '../util/ids.js';
import type { Logger } from '../util/logger.js';
import type { MetricsExposition } from '../metrics/exposition.js';
import type { VectorStoreService } from '../vector-stores/service.js';

/** Everything an endpoint may use, built once by the composition root (app/gateway.ts). */
export interface AppContext {
  config: Config;
  store: Store;
  catalog: Catalog;
  providers: ProviderRegistry;
  /** Per-route cooldowns and latency, shared by every request of this gateway. */
  routeHealth: RouteHealth;
  ledger: Ledger;
  /** Per-key requests per minute: in memory, or in Redis with `redis.url` (exact across instances). */
  rateLimiter: RequestRateLimiter;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  /** AES-256 key for contents stored at rest (src/crypto: seal / sealed streams), DESIGN §4. */
  dataKey: Buffer;
  /** Managed vector stores: records, per-store index and chunks, ingestion queue. */
  vectorStores: VectorStoreService;
  /** Stored files (/v1/files, batch inputs and outputs, vector store sources), sealed at rest. */
  files: FileStore;
  /** Batches: records and their runner (started once the app context exists); JSON or team (PostgreSQL) kind. */
  batches: Batches;
  /** The configured MCP servers (`mcp_servers`): /v1/mcp/{name} and the tools of /v1/tools. */
  mcpServers: UpstreamMcpServers;
  /** Live counters and running tasks for the `igw serve` dashboard (services report into it). */
  activity: Activity;
  /** Prometheus metrics fed by `activity` and route health; present only with `server.metrics: true`. */
  metrics?: MetricsExposition;
}
