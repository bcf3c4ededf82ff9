import type { Attributes } from './filters.js';

/** Normalized chunking strategy as OpenAI reports it on a vector store file. */
export interface StaticChunking {
  type: 'static';
  static: { max_chunk_size_tokens: number; chunk_overlap_tokens: number };
}

/** A store's default strategy as given at create (auto stays auto; files report the concrete values). */
export type StoreChunking = { type: 'auto' } | StaticChunking;

export interface ExpiresAfter {
  anchor: 'last_active_at';
  days: number;
}

/** A vector store as kept in vector_stores.json (spec "Vector store", DESIGN §5). */
export interface VectorStoreRecord {
  id: string;
  account: string;
  name: string;
  created_at: number;
  /** Fixed at create (DESIGN §5). */
  embedding_model: string;
  /** Default for files attached without their own strategy; null = none given (auto). */
  chunking_strategy: StoreChunking | null;
  expires_after: ExpiresAfter | null;
  last_active_at: number;
  metadata: Record<string, string>;
  /** Set when the store expired; its data is gone from then on. */
  expired_at: number | null;
}

export type FileStatus = 'in_progress' | 'completed' | 'failed' | 'cancelled';

export interface FileError {
  code: 'server_error' | 'unsupported_file' | 'invalid_file';
  message: string;
}

/** Where a vector store file's bytes come from. */
export type FileSource =
  /** A file of the Files API (attached, or uploaded into the store), read when ingestion runs. */
  | { kind: 'file'; mime_type?: string | null }
  /** Raw text, sealed under the store folder until ingested (sources/text). */
  | { kind: 'text' }
  /** A web page, fetched when ingestion runs (sources/url). */
  | { kind: 'url'; url: string };

/** One file of one store (vector_store_files.json). Its id is the attached file id. */
export interface VectorStoreFileRecord {
  id: string;
  vector_store_id: string;
  account: string;
  filename: string;
  created_at: number;
  /** Insertion order, to break created_at ties in lists. */
  seq: number;
  status: FileStatus;
  last_error: FileError | null;
  attributes: Attributes;
  chunking_strategy: StaticChunking;
  usage_bytes: number;
  source: FileSource;
  batch_id: string | null;
  /** The key whose request added the file: its ingestion's embedding calls are logged with it. */
  key_id?: string | null;
}

/** A file batch (vector_store_file_batches.json): its counts come from its files. */
export interface FileBatchRecord {
  id: string;
  vector_store_id: string;
  account: string;
  created_at: number;
  seq: number;
  file_ids: string[];
  cancelled_at: number | null;
}
