import type { FileBatchRecord, FileStatus, VectorStoreFileRecord, VectorStoreRecord } from './records.js';

export interface FileCounts {
  in_progress: number;
  completed: number;
  failed: number;
  cancelled: number;
  total: number;
}

export function countFiles(files: readonly VectorStoreFileRecord[]): FileCounts {
  const counts: FileCounts = { in_progress: 0, completed: 0, failed: 0, cancelled: 0, total: 0 };
  for (const file of files) {
    counts[file.status] += 1;
    counts.total += 1;
  }
  return counts;
}

/** DESIGN §5: `in_progress` while any file is, else `completed`; `expired` after expiry. */
export function storeStatus(store: VectorStoreRecord, counts: FileCounts): 'expired' | 'in_progress' | 'completed' {
  if (store.expired_at !== null) return 'expired';
  return counts.in_progress > 0 ? 'in_progress' : 'completed';
}

/** Expiry moment (Unix seconds) of a store with an expiry policy: last activity + days. */
export function expiresAt(store: VectorStoreRecord): number | null {
  return store.expires_after === null ? null : store.last_active_at + store.expires_after.days * 86_400;
}

/** A store's file counts and processed bytes, as the repository keeps them up to date (no scan per read). */
export interface StoreSummary {
  counts: FileCounts;
  usage_bytes: number;
}

/** Processed size (chunk text plus embeddings) of a store's files: what `usage_bytes` shows and storage billing meters. */
export function storeUsageBytes(store: VectorStoreRecord, summary: Pick<StoreSummary, 'usage_bytes'>): number {
  return store.expired_at === null ? summary.usage_bytes : 0;
}

/** The vector store object (spec "Vector store", plus OpenAI's last_active_at and DESIGN §5's embedding_model). */
export function renderStore(store: VectorStoreRecord, summary: StoreSummary) {
  const counts = { ...summary.counts };
  return {
    id: store.id,
    object: 'vector_store' as const,
    created_at: store.created_at,
    name: store.name,
    usage_bytes: storeUsageBytes(store, summary),
    file_counts: counts,
    status: storeStatus(store, counts),
    expires_after: store.expires_after,
    expires_at: store.expired_at ?? expiresAt(store),
    last_active_at: store.last_active_at,
    metadata: store.metadata,
    embedding_model: store.embedding_model,
  };
}

/** The vector store file object (DESIGN §5). */
export function renderFile(file: VectorStoreFileRecord) {
  return {
    id: file.id,
    object: 'vector_store.file' as const,
    vector_store_id: file.vector_store_id,
    status: file.status,
    usage_bytes: file.usage_bytes,
    created_at: file.created_at,
    last_error: file.last_error,
    attributes: file.attributes,
    chunking_strategy: file.chunking_strategy,
  };
}

/** A batch is cancelled once cancelled, else in progress while a file is, failed when every file failed. */
export function batchStatus(batch: FileBatchRecord, counts: FileCounts): FileStatus {
  if (batch.cancelled_at !== null) return 'cancelled';
  if (counts.in_progress > 0) return 'in_progress';
  if (counts.total > 0 && counts.failed === counts.total) return 'failed';
  return 'completed';
}

/** The file batch object (spec "Vector store file batch"). */
export function renderBatch(batch: FileBatchRecord, files: readonly VectorStoreFileRecord[]) {
  const counts = countFiles(files);
  return {
    id: batch.id,
    object: 'vector_store.file_batch' as const,
    created_at: batch.created_at,
    vector_store_id: batch.vector_store_id,
    status: batchStatus(batch, counts),
    file_counts: counts,
  };
}
