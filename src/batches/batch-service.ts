import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Principal } from '../auth/authenticate.js';
import type { Config } from '../config/load.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { FileStore } from '../files/file-store.js';
import { ensureDataDir } from '../store/db.js';
import type { Clock } from '../util/clock.js';
import type { IdGenerator } from '../util/ids.js';
import type { Logger } from '../util/logger.js';
import { ACTIVE_STATUSES, TERMINAL_STATUSES, type BatchRecord } from './batch-record.js';
import { BatchRepository } from './batch-repository.js';
import { BatchRun } from './batch-run.js';
import type { BatchPage, BatchPorts, Batches, NewBatch } from './batches-port.js';
import { countValidRows } from './input-rows.js';
import { checkedInputFile, maxLineBytes, newBatchRecord } from './new-batch.js';
import { readJsonlLines } from './jsonl.js';
import { Semaphore } from './semaphore.js';

export interface BatchServiceDeps {
  dataDir: string;
  config: Config;
  files: FileStore;
  key: Buffer;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
}

/**
 * Batches of the JSON store (spec "Batches", DESIGN §5): create-time checks, records, and the in-process runner.
 * Created with the stores; start() hands it its ports (each batchable endpoint's `execute`: rows
 * run the very pipeline of live requests, without HTTP; where progress shows) and resumes batches
 * a previous process left active.
 */
export class BatchService implements Batches {
  private readonly runs = new Map<string, BatchRun>();
  private readonly semaphore: Semaphore;
  private ports: BatchPorts | null = null;
  private closed = false;
  readonly folder: string;

  private constructor(
    private readonly deps: BatchServiceDeps,
    private readonly repository: BatchRepository,
  ) {
    this.semaphore = new Semaphore(deps.config.batches.concurrency);
    this.folder = path.join(deps.dataDir, 'batches');
  }

  static async open(deps: BatchServiceDeps): Promise<BatchService> {
    await ensureDataDir(deps.dataDir, 'batches');
    const service = new BatchService(deps, await BatchRepository.open(deps.dataDir));
    await service.removeStaleLogs();
    return service;
  }

  /** Results logs of finished batches (a crash between the terminal status and the log's removal). */
  private async removeStaleLogs(): Promise<void> {
    const active = new Set(this.repository.all().filter((record) => ACTIVE_STATUSES.has(record.status)).map((record) => `${record.id}.results`));
    for (const name of await readdir(this.folder)) {
      if (!active.has(name)) await rm(path.join(this.folder, name), { force: true });
    }
  }

  /** Starts (or resumes) every batch that is not finished. */
  start(ports: BatchPorts): void {
    this.ports = ports;
    for (const record of this.repository.all()) {
      if (ACTIVE_STATUSES.has(record.status)) this.launch(record);
    }
  }

  private launch(record: BatchRecord): void {
    if (this.ports === null || this.closed || this.runs.has(record.id)) return;
    const run = new BatchRun(record, {
      execute: this.ports.executes[record.endpoint],
      tasks: this.ports.tasks,
      clock: this.deps.clock,
      ids: this.deps.ids,
      logger: this.deps.logger,
      repository: this.repository,
      files: this.deps.files,
      semaphore: this.semaphore,
      key: this.deps.key,
      logPath: path.join(this.folder, `${record.id}.results`),
      maxLineBytes: maxLineBytes(this.deps.config),
      maxRequests: this.deps.config.batches.max_requests_per_file,
    });
    this.runs.set(record.id, run);
    void run.execute().finally(() => this.runs.delete(record.id));
  }

  /**
   * Every create-time check of the spec, in order: the input file's (new-batch.ts), then
   * line-by-line validation (3306 unparsable line, 3303 shape/url/duplicate custom_id, 3305 too
   * many requests).
   */
  async create(principal: Principal, batch: NewBatch): Promise<BatchRecord> {
    const file = await checkedInputFile(this.deps.files, principal, batch);
    const source = this.deps.files.openRead(file);
    let total: number;
    try {
      total = await countValidRows(readJsonlLines(source, maxLineBytes(this.deps.config)), { endpoint: batch.endpoint, maxRequests: this.deps.config.batches.max_requests_per_file });
    } finally {
      source.destroy();
    }
    const record = newBatchRecord(principal, batch, file, total, this.deps.clock, this.deps.ids);
    await this.repository.insert(record);
    this.launch(record);
    return record;
  }

  async get(accountId: string, id: string): Promise<BatchRecord | undefined> {
    return this.own(accountId, id);
  }

  private own(accountId: string, id: string): BatchRecord | undefined {
    const record = this.repository.get(id);
    return record !== undefined && record.account === accountId ? record : undefined;
  }

  /** Newest first; `after` is the id of the last batch of the previous page. */
  async list(accountId: string, options: { limit: number; after?: string }): Promise<BatchPage> {
    let batches = this.repository.all().filter((record) => record.account === accountId).reverse();
    if (options.after !== undefined) {
      const index = batches.findIndex((record) => record.id === options.after);
      batches = index === -1 ? [] : batches.slice(index + 1);
    }
    return { data: batches.slice(0, options.limit), has_more: batches.length > options.limit };
  }

  /** queued or in_progress → cancelling; the run stops, keeps finished rows, then cancelled. */
  async cancel(accountId: string, id: string): Promise<BatchRecord> {
    const record = this.own(accountId, id);
    if (record === undefined) throw new GatewayError('RESOURCE_5411', `No batch with id "${id}".`, { batch_id: id });
    if (record.status === 'cancelling' || record.status === 'cancelled') return record;
    if (TERMINAL_STATUSES.has(record.status) || record.status === 'finalizing') {
      throw new GatewayError('RESOURCE_5412', `Batch ${id} is ${record.status}; only a queued or in-progress batch can be cancelled.`, { status: record.status });
    }
    record.status = 'cancelling';
    record.cancelling_at = Math.floor(this.deps.clock.now() / 1000);
    await this.repository.save(record);
    const run = this.runs.get(id);
    if (run !== undefined) run.stop('cancel');
    else this.launch(record);
    return record;
  }

  /** Stops every run (rows in flight are abandoned and run again at the next start) and saves. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.runs.values()].map((run) => run.stopAndWait('shutdown')));
    await this.repository.close();
  }
}
