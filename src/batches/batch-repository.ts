import type { Low } from 'lowdb';
import { openCollection } from '../store/db.js';
import type { BatchRecord } from './batch-record.js';

interface BatchesDocument {
  batches: BatchRecord[];
}

/**
 * batches.json. Records are mutated in place by the service and written on every status change;
 * request counts in between are written at most once a second (the results log is the source
 * of truth for them after a crash).
 */
export class BatchRepository {
  private timer: NodeJS.Timeout | null = null;

  private constructor(private readonly database: Low<BatchesDocument>) {}

  static async open(dataDir: string): Promise<BatchRepository> {
    return new BatchRepository(await openCollection<BatchesDocument>(dataDir, 'batches', { batches: [] }));
  }

  all(): BatchRecord[] {
    return this.database.data.batches;
  }

  get(id: string): BatchRecord | undefined {
    return this.database.data.batches.find((record) => record.id === id);
  }

  async insert(record: BatchRecord): Promise<void> {
    this.database.data.batches.push(record);
    await this.save();
  }

  async save(): Promise<void> {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    await this.database.write();
  }

  saveSoon(): void {
    this.timer ??= setTimeout(() => {
      this.timer = null;
      void this.database.write().catch(() => undefined);
    }, 1000);
  }

  async close(): Promise<void> {
    if (this.timer !== null) await this.save();
  }
}
