import type pg from 'pg';
import type { Principal } from '../auth/authenticate.js';
import { seal } from '../crypto/sealed.js';
import { GatewayError } from '../errors/gateway-error.js';
import { BatchTables, type NewRow } from '../store/postgres/batch-tables.js';
import { TERMINAL_STATUSES, type BatchRecord } from './batch-record.js';
import type { BatchServiceDeps } from './batch-service.js';
import type { BatchPage, BatchPorts, BatchRowCounts, Batches, NewBatch } from './batches-port.js';
import { batchRows, type BatchRow } from './input-rows.js';
import { readJsonlLines } from './jsonl.js';
import { checkedInputFile, maxLineBytes, newBatchRecord } from './new-batch.js';
import { TeamBatchRunner } from './team-runner.js';

/** The JSON service's dependencies, with the team's pool in place of the data dir. */
export type TeamBatchDeps = Omit<BatchServiceDeps, 'dataDir'> & { pool: pg.Pool };

/** Rows inserted per statement at create. */
const INSERT_CHUNK = 500;

/** The validated rows of an input, sealed (AAD = batch id), in chunks for multi-row inserts. */
async function* sealedChunks(rows: AsyncIterable<BatchRow>, key: Buffer, batchId: string): AsyncGenerator<NewRow[]> {
  let chunk: NewRow[] = [];
  for await (const row of rows) {
    chunk.push({ index: row.index, customId: row.custom_id, body: seal(key, Buffer.from(JSON.stringify(row.body)), batchId) });
    if (chunk.length === INSERT_CHUNK) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield chunk;
}

/**
 * Batches in team mode (issue 19 items 1 and 2; DESIGN §4): records and rows in PostgreSQL, so a
 * batch created on one instance is listed, retrieved and cancelled on any other, its
 * request_counts move as any instance finishes rows, and every instance's TeamBatchRunner runs
 * its rows under leases. Create checks are the JSON store's (new-batch.ts, input-rows.ts); the
 * input's rows are validated and stored in one transaction, so every instance runs them
 * without reading the input file again.
 */
export class TeamBatchService implements Batches {
  private readonly tables: BatchTables;
  private readonly runner: TeamBatchRunner;

  constructor(private readonly deps: TeamBatchDeps) {
    this.tables = new BatchTables(deps.pool);
    this.runner = new TeamBatchRunner({
      tables: this.tables,
      files: deps.files,
      key: deps.key,
      clock: deps.clock,
      ids: deps.ids,
      logger: deps.logger,
      concurrency: deps.config.batches.concurrency,
      leaseMs: deps.config.batches.lease_seconds * 1000,
    });
  }

  start(ports: BatchPorts): void {
    this.runner.start(ports);
  }

  async create(principal: Principal, batch: NewBatch): Promise<BatchRecord> {
    const file = await checkedInputFile(this.deps.files, principal, batch);
    const record = newBatchRecord(principal, batch, file, 0, this.deps.clock, this.deps.ids);
    const source = this.deps.files.openRead(file);
    try {
      const rows = batchRows(readJsonlLines(source, maxLineBytes(this.deps.config)), { endpoint: batch.endpoint, maxRequests: this.deps.config.batches.max_requests_per_file });
      record.total = await this.tables.insert(record, sealedChunks(rows, this.deps.key, record.id));
    } finally {
      source.destroy();
    }
    this.runner.wake();
    return record;
  }

  async get(accountId: string, id: string): Promise<BatchRecord | undefined> {
    const record = await this.tables.get(id);
    return record !== undefined && record.account === accountId ? record : undefined;
  }

  async list(accountId: string, options: { limit: number; after?: string }): Promise<BatchPage> {
    const records = await this.tables.list(accountId, options.limit, options.after);
    return { data: records.slice(0, options.limit), has_more: records.length > options.limit };
  }

  async cancel(accountId: string, id: string): Promise<BatchRecord> {
    const record = await this.get(accountId, id);
    if (record === undefined) throw new GatewayError('RESOURCE_5411', `No batch with id "${id}".`, { batch_id: id });
    if (record.status === 'cancelling' || record.status === 'cancelled') return record;
    const cancelled = TERMINAL_STATUSES.has(record.status) || record.status === 'finalizing' ? undefined : await this.tables.cancel(id, Math.floor(this.deps.clock.now() / 1000));
    if (cancelled !== undefined) {
      this.runner.wake();
      return cancelled;
    }
    // Another instance moved it first (a cancel, an expiry, the finalization).
    const now = (await this.tables.get(id)) ?? record;
    if (now.status === 'cancelling' || now.status === 'cancelled') return now;
    throw new GatewayError('RESOURCE_5412', `Batch ${id} is ${now.status === 'in_progress' ? 'ending' : now.status}; only a queued or in-progress batch can be cancelled.`, { status: now.status });
  }

  rowCounts(): Promise<BatchRowCounts> {
    return this.tables.rowCounts();
  }

  close(): Promise<void> {
    return this.runner.close();
  }
}
