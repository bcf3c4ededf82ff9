import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Activity, ActivityObserver, TaskKind, TaskSnapshot } from '../app/activity.js';
import type { MetricsExposition } from './exposition.js';
import type { RequestLogEntry } from '../store/request-log.js';
import type { Logger } from '../util/logger.js';
import { WORK_GAUGES, type WorkKind, type WorkStateSource } from './work-states.js';

/**
 * Latency buckets in seconds: from a cached local answer (a few ms) to a long generation. Fixed
 * buckets (not a summary) so instances behind one load balancer aggregate (issue 19, team mode).
 */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** DESIGN §2 rate limit refusal: the one code whose count operators watch on its own. */
const RATE_LIMITED = 'AUTH_1028';

/**
 * The Prometheus metrics of one gateway (`GET /metrics` with `server.metrics: true`), fed by the
 * same activity feed as the dashboard, so every request, upstream failure and task is counted
 * exactly where it is already reported — the request path gains no new call site. Counters are
 * per instance; a team's Prometheus sums them across instances.
 *
 * Labels are bounded by configuration, not by clients: `endpoint` is the route template (a
 * request that matched no route is counted as `unmatched`), `model` the catalog id the request
 * named (unknown models are refused before they get one), `route` provider/upstream model.
 */
export class GatewayMetrics implements MetricsExposition {
  readonly registry = new Registry();
  private readonly requests: Counter<'endpoint' | 'model' | 'route' | 'status'>;
  private readonly latency: Histogram<'endpoint' | 'model' | 'route' | 'status'>;
  private readonly upstreamFailures: Counter<'provider' | 'code'>;
  private readonly tokens: Counter<'model' | 'route' | 'direction'>;
  private readonly eur: Counter<'model' | 'route'>;
  private readonly energy: Counter<'model' | 'route'>;
  private readonly carbon: Counter<'model' | 'route'>;
  private readonly rateLimited: Counter<'endpoint'>;
  private readonly batchRows: Counter<'state'>;
  private readonly tasksEnded: Counter<'kind' | 'state'>;

  constructor(activity: Activity, knownEndpoints: ReadonlySet<string>, private readonly logger?: Pick<Logger, 'warn'>) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'igw_' });
    const requestLabels = ['endpoint', 'model', 'route', 'status'] as const;
    this.requests = new Counter({ name: 'igw_requests_total', help: 'Requests answered, by endpoint, model, route and HTTP status.', labelNames: requestLabels, registers });
    this.latency = new Histogram({ name: 'igw_request_duration_seconds', help: 'Time from arrival to the last byte, by endpoint, model, route and HTTP status.', labelNames: requestLabels, buckets: LATENCY_BUCKETS, registers });
    this.upstreamFailures = new Counter({
      name: 'igw_upstream_failures_total',
      help: 'Failed provider attempts (each route tried, fallbacks included), by provider and error code.',
      labelNames: ['provider', 'code'],
      registers,
    });
    this.tokens = new Counter({ name: 'igw_tokens_total', help: 'Tokens billed, by model, route and direction (input or output).', labelNames: ['model', 'route', 'direction'], registers });
    this.eur = new Counter({ name: 'igw_cost_eur_total', help: 'Credits charged in EUR, by model and route.', labelNames: ['model', 'route'], registers });
    this.energy = new Counter({ name: 'igw_energy_kwh_total', help: 'Estimated energy of the calls in kWh, by model and route.', labelNames: ['model', 'route'], registers });
    this.carbon = new Counter({ name: 'igw_carbon_grams_total', help: 'Estimated emissions of the calls in g CO2e, by model and route.', labelNames: ['model', 'route'], registers });
    this.rateLimited = new Counter({ name: 'igw_rate_limited_total', help: 'Requests refused by the per-key rate limit (AUTH_1028), by endpoint.', labelNames: ['endpoint'], registers });
    this.batchRows = new Counter({ name: 'igw_batch_rows_total', help: 'Batch rows finished, by state (succeeded or errored).', labelNames: ['state'], registers });
    this.tasksEnded = new Counter({
      name: 'igw_tasks_total',
      help: 'Background jobs ended (kind batch or ingestion: one per batch, one per file), by final state.',
      labelNames: ['kind', 'state'],
      registers,
    });
    new Gauge({
      name: 'igw_tasks_running',
      help: 'Background jobs running now (batches, file ingestions), by kind.',
      labelNames: ['kind'],
      registers,
      collect() {
        const running = activity.runningTasks();
        this.reset();
        // Both kinds are always present, so a dashboard shows 0 rather than no data.
        for (const kind of ['batch', 'ingestion'] as TaskKind[]) this.set({ kind }, running.get(kind) ?? 0);
        for (const [kind, count] of running) if (kind !== 'batch' && kind !== 'ingestion') this.set({ kind }, count);
      },
    });
    activity.observe(this.observer(knownEndpoints));
  }

  /**
   * The service that keeps `kind` reports its stored items by state through this port, read at
   * each scrape (batches: `igw_batch_rows`, vector stores: `igw_ingestion_jobs`); app/gateway.ts
   * wires it where a store counts them (team mode: across every instance, the same figure on
   * each, unlike the counters).
   */
  countWork(kind: WorkKind, source: WorkStateSource): void {
    const logger = this.logger;
    const { name, help } = WORK_GAUGES[kind];
    new Gauge({
      name,
      help,
      labelNames: ['state'],
      registers: [this.registry],
      async collect() {
        this.reset();
        try {
          for (const [state, count] of Object.entries(await source.countByState())) this.set({ state }, count);
        } catch (error) {
          // A store that cannot answer now leaves this gauge out of one scrape; the rest is served.
          logger?.warn('metrics: could not count work items', { kind, error: String(error) });
        }
      },
    });
  }

  /** One failed provider attempt: routing reports it (route key `provider/upstream-model`). */
  upstreamFailure(routeKey: string, code: string): void {
    const slash = routeKey.indexOf('/');
    this.upstreamFailures.inc({ provider: slash < 0 ? routeKey : routeKey.slice(0, slash), code });
  }

  /** The exposition text and its content type (Prometheus text format 0.0.4). */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  private observer(knownEndpoints: ReadonlySet<string>): ActivityObserver {
    return {
      request: (entry) => this.countRequest(entry, knownEndpoints.has(entry.endpoint) ? entry.endpoint : 'unmatched'),
      task: (task, before) => this.countTask(task, before),
    };
  }

  private countRequest(entry: RequestLogEntry, endpoint: string): void {
    const model = entry.model ?? '';
    const route = entry.route ?? '';
    const labels = { endpoint, model, route, status: String(entry.status) };
    this.requests.inc(labels);
    this.latency.observe(labels, entry.latency_ms / 1000);
    if (entry.error_code === RATE_LIMITED) this.rateLimited.inc({ endpoint });
    if (route === '') return;
    if (entry.input_tokens > 0) this.tokens.inc({ model, route, direction: 'input' }, entry.input_tokens);
    if (entry.output_tokens > 0) this.tokens.inc({ model, route, direction: 'output' }, entry.output_tokens);
    // Exact money is the ledger's; a metric is a float by nature (Prometheus samples are doubles).
    const eur = entry.eur === '0' ? 0 : Number(entry.eur);
    if (eur > 0) this.eur.inc({ model, route }, eur);
    if (entry.energy_kwh > 0) this.energy.inc({ model, route }, entry.energy_kwh);
    if (entry.carbon_g_co2 > 0) this.carbon.inc({ model, route }, entry.carbon_g_co2);
  }

  private countTask(task: Readonly<TaskSnapshot>, before: { done: number; failed: number }): void {
    if (task.kind === 'batch') {
      // A batch task counts rows: `done` includes the errored ones (batches/batch-run.ts).
      const errored = task.failed - before.failed;
      const succeeded = task.done - before.done - errored;
      if (succeeded > 0) this.batchRows.inc({ state: 'succeeded' }, succeeded);
      if (errored > 0) this.batchRows.inc({ state: 'errored' }, errored);
    }
    if (task.status !== 'running') this.tasksEnded.inc({ kind: task.kind, state: task.status });
  }
}
