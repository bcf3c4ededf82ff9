import type { Collection } from '../store/collection.js';
import { DocumentCollection } from '../store/document-collection.js';
import type { BatchRecord } from './batch-record.js';

/**
 * batches.json (`{ "batches": [...] }`). Records are mutated in place by the service and saved on
 * every status change; request counts in between are saved at most once a second (the results
 * log is the source of truth for them after a crash).
 */
export class BatchRepository {
  private timer: NodeJS.Timeout | null = null;
  /** Records changed since the last save, waiting for the once-a-second write. */
  private readonly dirty = new Set<BatchRecord>();

  private constructor(private readonly records: Collection<BatchRecord>) {}

  static async open(dataDir: string): Promise<BatchRepository> {
    return new BatchRepository(await DocumentCollection.open<BatchRecord>(dataDir, 'batches', { key: (record) => record.id, field: 'batches' }));
  }

  /** Oldest first. */
  all(): BatchRecord[] {
    return [...this.records.values()];
  }

  get(id: string): BatchRecord | undefined {
    return this.records.get(id);
  }

  async insert(record: BatchRecord): Promise<void> {
    await this.records.put(record);
  }

  /** Writes `record` as it is now, with any change still waiting for the timer. */
  async save(record: BatchRecord): Promise<void> {
    this.dirty.add(record);
    await this.writeDirty();
  }

  /** Saves `record` within a second (counts that move with every row). */
  saveSoon(record: BatchRecord): void {
    this.dirty.add(record);
    this.timer ??= setTimeout(() => void this.writeDirty().catch(() => undefined), 1000);
  }

  private writeDirty(): Promise<void> {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const records = [...this.dirty];
    this.dirty.clear();
    return this.records.put(...records);
  }

  async close(): Promise<void> {
    if (this.dirty.size > 0) await this.writeDirty();
    await this.records.close();
  }
}
