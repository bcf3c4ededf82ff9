import type { RequestLogEntry } from '../store/request-log.js';
import { percentile } from '../usage/percentile.js';

/**
 * Live, in-memory view of what this gateway is doing, for the `igw serve` dashboard.
 *
 * Requests report through `recordRequest` (called once per request, after the request log line
 * is built): fixed-size typed-array rings and counters keyed by model/key/code, so the hot path
 * does a few arithmetic updates and, after warm-up, allocates nothing. Everything derived
 * (rates, percentiles, rankings) is computed in `snapshot()`, which the dashboard calls about
 * once a second.
 *
 * Long-running services (batches, vector-store ingestion) report through `startTask`: they get a
 * handle to update progress and end the task; the dashboard lists running tasks and the last few
 * finished ones.
 */

/** Seconds of per-second request counts kept (rate and sparkline window). */
const RATE_SECONDS = 60;
/** The most recent latencies kept for p50/p99. */
const LATENCY_SAMPLES = 2048;
/** Finished tasks still shown. */
const FINISHED_KEPT = 5;
/** Most recent requests kept for the dashboard's request lines. */
const RECENT_KEPT = 50;

export type TaskKind = 'batch' | 'ingestion' | (string & {});
export type TaskStatus = 'running' | 'completed' | 'failed' | 'cancelled';

export interface TaskProgress {
  /** Units done so far (rows, files). */
  done?: number;
  /** Units expected, when known. */
  total?: number;
  failed?: number;
  /** Short free text, e.g. the current file. */
  detail?: string;
}

/**
 * A consumer of the activity feed. `task` is called on every progress update and at the end
 * (then `task.status` is no longer 'running'), with the counts from before the change.
 */
export interface ActivityObserver {
  request?(entry: RequestLogEntry): void;
  task?(task: Readonly<TaskSnapshot>, before: { done: number; failed: number }): void;
}

export interface TaskSnapshot extends Required<Pick<TaskProgress, 'done' | 'failed'>> {
  kind: TaskKind;
  id: string;
  label: string;
  status: TaskStatus;
  total: number | null;
  detail: string | null;
  started_at: number;
  ended_at: number | null;
}

/** What a service holds while its work runs; every method is cheap and safe to call after end(). */
export interface TaskHandle {
  progress(update: TaskProgress): void;
  /** Counts carried over from an earlier run of the same work (a resumed batch): shown, but not news to observers. */
  restore(update: Pick<TaskProgress, 'done' | 'failed'>): void;
  end(status: Exclude<TaskStatus, 'running'>, detail?: string): void;
}

/** The port long-running services report through (Activity implements it): they never see the rest of the app. */
export interface TaskBoard {
  startTask(kind: TaskKind, id: string, label: string, progress?: TaskProgress): TaskHandle;
}

interface Tally {
  requests: number;
  errors: number;
  eur: number;
}

export interface RankedTally extends Tally {
  name: string;
}

/** One finished request as the dashboard lists it: names, not ids. */
export interface RequestLine {
  /** ms since the epoch. */
  time: number;
  /** The key's name (its id when it has none; null: no valid key). */
  key: string | null;
  endpoint: string;
  model: string | null;
  status: number;
  error_code: string | null;
  latency_ms: number;
  eur: number;
}

/** Upstream failures are the INFERENCE_31xx family (provider errors, timeouts, all routes failed). */
export function isUpstreamFailure(code: string | null): boolean {
  return code !== null && code.startsWith('INFERENCE_31');
}

export interface ActivitySnapshot {
  /** ms since the epoch when taken. */
  now: number;
  started_at: number;
  /** Requests per second over the last 10 s. */
  requests_per_second: number;
  /** Requests in each of the last 60 seconds, oldest first. */
  per_second: number[];
  /** Over the most recent requests (up to 2048). */
  latency_p50_ms: number;
  latency_p99_ms: number;
  in_flight: number;
  total_requests: number;
  /** Error responses since start by error code (or HTTP status when no code), most frequent first. */
  errors: Array<{ code: string; count: number }>;
  today: {
    day: string;
    requests: number;
    errors: number;
    eur: number;
    energy: number;
    energy_kwh: number;
    carbon_g_co2: number;
  };
  /** Today's busiest models and keys (by requests), up to 5 each. */
  top_models: RankedTally[];
  top_keys: RankedTally[];
  tasks: TaskSnapshot[];
  /** The most recent requests, oldest first (up to 50). */
  recent: RequestLine[];
}

const DAY_MS = 86_400_000;

export class Activity implements TaskBoard {
  private readonly secondStamp = new Float64Array(RATE_SECONDS).fill(-1);
  private readonly secondCount = new Uint32Array(RATE_SECONDS);
  private readonly latencies = new Float64Array(LATENCY_SAMPLES);
  private latencyNext = 0;
  private latencyFilled = 0;
  private totalRequests = 0;
  private inFlight: () => number = () => 0;
  private readonly errorCounts = new Map<string, number>();

  private dayNumber = -1;
  private today = { requests: 0, errors: 0, eur: 0, energy: 0, energy_kwh: 0, carbon_g_co2: 0 };
  private models = new Map<string, Tally>();
  private keys = new Map<string, Tally>();

  private readonly recentEntries: Array<RequestLogEntry | undefined> = new Array<RequestLogEntry | undefined>(RECENT_KEPT);
  private recentNext = 0;
  private keyName: (id: string) => string | undefined = () => undefined;
  private listener: ((entry: RequestLogEntry) => void) | null = null;
  private readonly observers: ActivityObserver[] = [];

  private readonly running = new Map<string, TaskSnapshot>();
  private finished: TaskSnapshot[] = [];

  readonly startedAt: number;

  constructor(private readonly now: () => number = Date.now) {
    this.startedAt = now();
  }

  /** The HTTP server hands over its own in-flight counter (read per frame, nothing per request). */
  watchInFlight(read: () => number): void {
    this.inFlight = read;
  }

  /** How key ids read on the dashboard (the composition root hands over the key store's names). */
  nameKeys(resolve: (id: string) => string | undefined): void {
    this.keyName = resolve;
  }

  /** The key's name, else its id; null for a request without a valid key. */
  keyLabel(id: string | null): string | null {
    if (id === null) return null;
    const name = this.keyName(id);
    return name === undefined || name === '' ? id : name;
  }

  /** Called with every finished request (`igw serve --no-tui` writes one JSON line each). */
  onRequest(listener: ((entry: RequestLogEntry) => void) | null): void {
    this.listener = listener;
  }

  /**
   * Another consumer of the same feed (the Prometheus metrics of `server.metrics`): sees every
   * request and every task change. Nothing is observed, and nothing costs, until one is added.
   */
  observe(observer: ActivityObserver): void {
    this.observers.push(observer);
  }

  /** Running tasks by kind, for gauges read at scrape time. */
  runningTasks(): Map<TaskKind, number> {
    const counts = new Map<TaskKind, number>();
    for (const task of this.running.values()) counts.set(task.kind, (counts.get(task.kind) ?? 0) + 1);
    return counts;
  }

  /** One finished request (the request-log entry, already built): O(1), no allocation once warm. */
  recordRequest(entry: RequestLogEntry): void {
    this.recentEntries[this.recentNext] = entry;
    this.recentNext = (this.recentNext + 1) % RECENT_KEPT;
    this.listener?.(entry);
    for (const observer of this.observers) observer.request?.(entry);
    const now = this.now();
    const second = Math.floor(now / 1000);
    const slot = second % RATE_SECONDS;
    if (this.secondStamp[slot] !== second) {
      this.secondStamp[slot] = second;
      this.secondCount[slot] = 0;
    }
    this.secondCount[slot]! += 1;
    this.latencies[this.latencyNext] = entry.latency_ms;
    this.latencyNext = (this.latencyNext + 1) % LATENCY_SAMPLES;
    if (this.latencyFilled < LATENCY_SAMPLES) this.latencyFilled += 1;
    this.totalRequests += 1;
    const failed = entry.status >= 400;
    if (failed) {
      const code = entry.error_code ?? `HTTP ${entry.status}`;
      this.errorCounts.set(code, (this.errorCounts.get(code) ?? 0) + 1);
    }
    this.addToday(entry, Math.floor(now / DAY_MS), failed);
  }

  /**
   * Requests logged before this gateway started (read once from today's request log at
   * dashboard start), so "today" means the UTC day, not the uptime.
   */
  seedToday(entries: readonly RequestLogEntry[]): void {
    const today = Math.floor(this.now() / DAY_MS);
    for (const entry of entries) {
      const time = Date.parse(entry.time);
      // Later ones this process counts itself; earlier days are not today.
      if (time >= this.startedAt || Math.floor(time / DAY_MS) !== today) continue;
      this.addToday(entry, today, entry.status >= 400);
    }
  }

  /**
   * Seeds "today" from the request log, whichever store holds it: the data dir's files, or in
   * team mode the PostgreSQL table with every instance's lines (DESIGN §4), so the dashboard's
   * "today" is the team's requests before this start, then this process's own.
   */
  async seedTodayFrom(log: { readSince(since: number): Promise<RequestLogEntry[]> }): Promise<void> {
    const midnight = Math.floor(this.now() / DAY_MS) * DAY_MS;
    this.seedToday(await log.readSince(midnight));
  }

  private addToday(entry: RequestLogEntry, day: number, failed: boolean): void {
    if (day !== this.dayNumber) {
      if (day < this.dayNumber) return;
      this.dayNumber = day;
      this.today = { requests: 0, errors: 0, eur: 0, energy: 0, energy_kwh: 0, carbon_g_co2: 0 };
      this.models = new Map();
      this.keys = new Map();
    }
    // Display-only sums: floats are plenty for a dashboard; exact money lives in the ledger.
    const eur = entry.eur === '0' ? 0 : Number(entry.eur);
    const today = this.today;
    today.requests += 1;
    if (failed) today.errors += 1;
    today.eur += eur;
    if (entry.energy !== '0') today.energy += Number(entry.energy);
    today.energy_kwh += entry.energy_kwh;
    today.carbon_g_co2 += entry.carbon_g_co2;
    if (entry.model !== null) tally(this.models, entry.model, failed, eur);
    if (entry.key_id !== null) tally(this.keys, entry.key_id, failed, eur);
  }

  /** A long-running job to show on the dashboard (a batch, a vector-store ingestion). */
  startTask(kind: TaskKind, id: string, label: string, progress: TaskProgress = {}): TaskHandle {
    const task: TaskSnapshot = {
      kind,
      id,
      label,
      status: 'running',
      done: progress.done ?? 0,
      failed: progress.failed ?? 0,
      total: progress.total ?? null,
      detail: progress.detail ?? null,
      started_at: this.now(),
      ended_at: null,
    };
    const key = `${kind}:${id}`;
    this.running.set(key, task);
    return {
      progress: (update) => {
        if (task.status !== 'running') return;
        const before = { done: task.done, failed: task.failed };
        if (update.done !== undefined) task.done = update.done;
        if (update.failed !== undefined) task.failed = update.failed;
        if (update.total !== undefined) task.total = update.total;
        if (update.detail !== undefined) task.detail = update.detail;
        for (const observer of this.observers) observer.task?.(task, before);
      },
      restore: (update) => {
        if (task.status !== 'running') return;
        if (update.done !== undefined) task.done = update.done;
        if (update.failed !== undefined) task.failed = update.failed;
      },
      end: (status, detail) => {
        if (task.status !== 'running') return;
        // Completed means every unit is done, whether or not the service reported the last one.
        const before = { done: task.done, failed: task.failed };
        if (status === 'completed' && task.total !== null && task.done + task.failed < task.total) task.done = task.total - task.failed;
        task.status = status;
        task.ended_at = this.now();
        if (detail !== undefined) task.detail = detail;
        if (this.running.get(key) === task) this.running.delete(key);
        this.finished = [task, ...this.finished].slice(0, FINISHED_KEPT);
        for (const observer of this.observers) observer.task?.(task, before);
      },
    };
  }

  snapshot(): ActivitySnapshot {
    const now = this.now();
    const second = Math.floor(now / 1000);
    const perSecond: number[] = [];
    // The current second is still filling up: the rate uses the 10 full seconds before it.
    for (let back = RATE_SECONDS - 1; back >= 0; back -= 1) {
      const wanted = second - back;
      const slot = ((wanted % RATE_SECONDS) + RATE_SECONDS) % RATE_SECONDS;
      perSecond.push(this.secondStamp[slot] === wanted ? this.secondCount[slot]! : 0);
    }
    const recent = perSecond.slice(-11, -1);
    const sorted = this.latencies.slice(0, this.latencyFilled).sort();
    // No request yet today: yesterday's sums are not today's.
    const sameDay = Math.floor(now / DAY_MS) === this.dayNumber;
    const today = sameDay ? this.today : { requests: 0, errors: 0, eur: 0, energy: 0, energy_kwh: 0, carbon_g_co2: 0 };
    return {
      now,
      started_at: this.startedAt,
      requests_per_second: recent.reduce((sum, count) => sum + count, 0) / recent.length,
      per_second: perSecond,
      latency_p50_ms: percentile(sorted, 50),
      latency_p99_ms: percentile(sorted, 99),
      in_flight: this.inFlight(),
      total_requests: this.totalRequests,
      errors: [...this.errorCounts].map(([code, count]) => ({ code, count })).sort((a, b) => b.count - a.count || a.code.localeCompare(b.code)),
      today: { day: new Date(now).toISOString().slice(0, 10), ...today },
      top_models: sameDay ? top(this.models) : [],
      top_keys: sameDay ? top(this.keys).map((tally) => ({ ...tally, name: this.keyLabel(tally.name) ?? tally.name })) : [],
      tasks: [...this.running.values(), ...this.finished].map((task) => ({ ...task })),
      recent: this.recentLines(),
    };
  }

  private recentLines(): RequestLine[] {
    const lines: RequestLine[] = [];
    for (let offset = 0; offset < RECENT_KEPT; offset += 1) {
      const entry = this.recentEntries[(this.recentNext + offset) % RECENT_KEPT];
      if (entry === undefined) continue;
      lines.push({
        time: Date.parse(entry.time),
        key: this.keyLabel(entry.key_id),
        endpoint: entry.endpoint,
        model: entry.model,
        status: entry.status,
        error_code: entry.error_code,
        latency_ms: entry.latency_ms,
        eur: entry.eur === '0' ? 0 : Number(entry.eur),
      });
    }
    return lines;
  }
}

function tally(map: Map<string, Tally>, name: string, failed: boolean, eur: number): void {
  let entry = map.get(name);
  if (entry === undefined) {
    entry = { requests: 0, errors: 0, eur: 0 };
    map.set(name, entry);
  }
  entry.requests += 1;
  if (failed) entry.errors += 1;
  entry.eur += eur;
}

function top(map: Map<string, Tally>, count = 5): RankedTally[] {
  return [...map]
    .map(([name, entry]) => ({ name, ...entry }))
    .sort((a, b) => b.requests - a.requests || a.name.localeCompare(b.name))
    .slice(0, count);
}
