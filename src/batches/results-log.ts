import { createReadStream } from 'node:fs';
import { open, rm, stat } from 'node:fs/promises';
import { seal, unseal } from '../crypto/sealed.js';
import { BatchedAppender } from '../store/batched-appender.js';
import { readJsonlLines } from './jsonl.js';

/** One batch output line (spec "Batch output line"). */
export interface OutputLine {
  id: string;
  custom_id: string;
  response: { status_code: number; request_id: string; body: unknown } | null;
  error: { code: string; message: string } | null;
}

/** A finished row as kept in the results log: its index in the input and its output line. */
export interface RowResult {
  i: number;
  out: OutputLine;
}

/** Longest results-log line read back (a row's answer; generous, images are base64). */
const MAX_LOG_LINE_BYTES = 256 * 1024 * 1024;

/**
 * The crash-safe record of finished rows of one running batch: an append-only file of lines,
 * each sealed on its own (AES-256-GCM, AAD = batch id) and base64-encoded. A row counts as done
 * once its line reached the OS; after a crash the log is read back and those rows are never run
 * again. A torn last line (crash mid-write) fails to open and is skipped: its row runs again.
 */
export class ResultsLog {
  private appender: BatchedAppender | null = null;

  constructor(
    readonly path: string,
    private readonly key: Buffer,
    private readonly batchId: string,
  ) {}

  /** Before appending after a restart: end a torn last line so the next line starts clean. */
  async openForAppend(onError: (error: Error) => void): Promise<void> {
    const info = await stat(this.path).catch(() => undefined);
    if (info !== undefined && info.size > 0) {
      const handle = await open(this.path, 'r+');
      try {
        const last = Buffer.alloc(1);
        await handle.read(last, 0, 1, info.size - 1);
        if (last[0] !== 0x0a) await handle.write('\n', info.size);
      } finally {
        await handle.close();
      }
    }
    this.appender = new BatchedAppender(this.path, 5, onError);
  }

  append(result: RowResult): Promise<void> {
    if (this.appender === null) throw new Error('results log not open');
    return this.appender.append(seal(this.key, Buffer.from(JSON.stringify(result)), this.batchId).toString('base64'));
  }

  /** Every intact row result, in the order written. */
  async *read(): AsyncGenerator<RowResult> {
    const info = await stat(this.path).catch(() => undefined);
    if (info === undefined) return;
    for await (const { text } of readJsonlLines(createReadStream(this.path), MAX_LOG_LINE_BYTES)) {
      if (text === '') continue;
      let result: RowResult;
      try {
        result = JSON.parse(unseal(this.key, Buffer.from(text, 'base64'), this.batchId).toString('utf8')) as RowResult;
      } catch {
        continue; // torn by a crash: that row was not done
      }
      yield result;
    }
  }

  async close(): Promise<void> {
    await this.appender?.close();
    this.appender = null;
  }

  async remove(): Promise<void> {
    await this.close();
    await rm(this.path, { force: true });
  }
}
