import type { CommitTurn } from './commit-turns.js';
import type { StoreData, StoredChunk } from './store-data.js';

/** The lease of the ingestion job a commit finishes (team mode): the commit only lands while it is held. */
export interface JobLease {
  owner: string;
}

/**
 * Raised when the job's lease was lost before the commit (another instance took the job after
 * the lease expired): the commit is rolled back, so no file is committed twice (issue 19 item 2).
 */
export class LeaseLost extends Error {
  constructor() {
    super('the ingestion lease expired; another instance runs this file');
  }
}

/**
 * Where a store's chunks and vectors live, and its searchable index (DESIGN §4). Two
 * implementations, chosen in the composition root: the data dir (local-contents.ts: the store
 * folder is the truth) and PostgreSQL (replicated-contents.ts: the database is the truth, each
 * instance's StoreData is a cache fed by a change feed).
 */
export interface StoreContents {
  /** The store's searchable data (index, chunk texts), opened on first use. */
  data(storeId: string): Promise<StoreData>;
  /** Stores a file's chunks and vectors (in its commit turn); resolves once durable, with its processed size in bytes. */
  commit(storeId: string, fileId: string, chunks: readonly StoredChunk[], vectors: readonly (readonly number[])[], options?: { turn?: CommitTurn; lease?: JobLease }): Promise<number>;
  /** Removes a file's chunks from the store. */
  remove(storeId: string, fileId: string): Promise<void>;
  /** Removes everything the store holds (deleted or expired). */
  drop(storeId: string): Promise<void>;
  /** Files whose chunks are committed (reconciling records left `in_progress` by a crash). */
  committedFiles(storeId: string): Promise<Set<string>>;
  /** Whether a file's chunks are committed. */
  isCommitted(storeId: string, fileId: string): Promise<boolean>;
  /** A committed file's processed size (chunk text plus vectors). */
  usageBytes(storeId: string, fileId: string): Promise<number>;
  close(): Promise<void>;
}

/** Processed size as the spec bills it: chunk text bytes plus 4 bytes per vector component. */
export function processedBytes(chunks: readonly StoredChunk[], vectors: readonly (readonly number[])[]): number {
  const textBytes = chunks.reduce((sum, chunk) => sum + Buffer.byteLength(chunk.text, 'utf8'), 0);
  return textBytes + vectors.length * (vectors[0]?.length ?? 0) * 4;
}
