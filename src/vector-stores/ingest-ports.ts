import type { TaskBoard } from '../app/activity.js';
import type { FileRecord } from '../files/file-record.js';
import type { DocumentTools } from './document-tools.js';

export interface EmbedRequestOptions {
  signal?: AbortSignal;
  /** What the request-log line of the call says in its `endpoint` column. */
  endpoint: string;
  /** The key whose request caused the work (ingestion: the upload's), for that log line. */
  keyId?: string | null;
}

/**
 * Embeds texts with a model for an account, routed, billed and logged like POST /v1/embeddings;
 * one vector per text, in order. Wired in app/gateway.ts to vector-stores/embedder.ts, which runs
 * the inference pipeline's stages (resolve, call with fallback, meter).
 */
export type EmbedTexts = (accountId: string, modelId: string, texts: readonly string[], options: EmbedRequestOptions) => Promise<number[][]>;

/** The Files API as ingestion reads it (sources of kind `file`). */
export interface StoredFileReader {
  get(accountId: string, id: string): Promise<FileRecord | undefined>;
  readAll(record: FileRecord): Promise<Buffer>;
}

/** What VectorStoreService.start() needs from the rest of the gateway, built by the composition root. */
export interface VectorStorePorts {
  embed: EmbedTexts;
  files: StoredFileReader;
  /** The document layer: parsing, chunking, URL fetching. */
  tools: DocumentTools;
  /** The `igw serve` dashboard's task list (one task per ingestion). */
  tasks: TaskBoard;
}
