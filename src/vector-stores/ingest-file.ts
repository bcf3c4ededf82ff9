import { isGatewayError } from '../errors/gateway-error.js';
import type { Logger } from '../util/logger.js';
import { abortableSleep } from '../util/sleep.js';
import type { CommitTurn } from './commit-turns.js';
import { LeaseLost, type StoreContents } from './contents.js';
import type { DocumentTools } from './document-tools.js';
import type { IngestJob } from './ingest-queue.js';
import type { EmbedTexts, StoredFileReader } from './ingest-ports.js';
import type { FileError, VectorStoreFileRecord } from './records.js';
import type { VectorStoreRepository } from './repository.js';
import type { SourceBlobs } from './source-blobs.js';

/** Transient embedding failures (provider down, rate limited) are retried this many times. */
const INGEST_ATTEMPTS = 4;
/** Parsers take the whole document in memory: larger files are refused rather than risk the process. */
export const MAX_INGEST_BYTES = 100 * 1024 * 1024;

export interface IngestContext {
  embed: EmbedTexts;
  files: StoredFileReader;
  tools: DocumentTools;
  repository: VectorStoreRepository;
  sources: SourceBlobs;
  contents: StoreContents;
  logger: Logger;
}

/** Text of a file, by source. */
async function extractText(context: IngestContext, file: VectorStoreFileRecord, signal: AbortSignal): Promise<string> {
  const { tools } = context;
  switch (file.source.kind) {
    case 'text':
      return (await context.sources.read(file.vector_store_id, file.id)).toString('utf8');
    case 'url': {
      const fetched = await tools.fetchUrl(file.source.url, signal);
      return (await tools.extract({ bytes: fetched.bytes, filename: fetched.filename, mimeType: fetched.mimeType })).text;
    }
    case 'file': {
      const { files } = context;
      const record = await files.get(file.account, file.id);
      if (record === undefined) throw new IngestFailure({ code: 'invalid_file', message: `File "${file.id}" was deleted before it could be processed.` });
      if (record.bytes > MAX_INGEST_BYTES) {
        throw new IngestFailure({ code: 'invalid_file', message: `The file is ${record.bytes} bytes; vector stores index files up to ${MAX_INGEST_BYTES} bytes. Split it.` });
      }
      return (await tools.extract({ bytes: await files.readAll(record), filename: record.filename, mimeType: file.source.mime_type ?? undefined })).text;
    }
  }
}

/**
 * One file: extract → chunk → embed (routed and billed to the store's account) → commit (in its
 * turn, see commit-turns.ts) → completed. An abort (shutdown, cancel, detach) stops it where it is: after a shutdown the file
 * is still `in_progress` and runs again at the next start.
 */
export async function ingestFile(context: IngestContext, job: IngestJob, signal: AbortSignal, commitTurn?: CommitTurn): Promise<void> {
  const { repository } = context;
  const store = repository.store(job.storeId);
  const file = repository.file(job.storeId, job.fileId);
  if (store === undefined || file === undefined || file.status !== 'in_progress' || store.expired_at !== null) return;
  for (let attempt = 1; ; attempt += 1) {
    try {
      const text = await extractText(context, file, signal);
      const chunks = context.tools.chunk(text, file.chunking_strategy).filter((chunk) => chunk.text.trim() !== '');
      if (chunks.length === 0) throw new IngestFailure({ code: 'invalid_file', message: 'The file contains no text to index.' });
      const vectors = await context.embed(store.account, store.embedding_model, chunks.map((chunk) => chunk.text), {
        signal,
        endpoint: '/v1/vector_stores/{vector_store_id}/files (ingest)',
        keyId: file.key_id ?? null,
      });
      signal.throwIfAborted();
      // Detached or cancelled meanwhile: nothing to commit.
      if (repository.file(job.storeId, job.fileId) !== file || file.status !== 'in_progress') return;
      const usageBytes = await context.contents.commit(store.id, file.id, chunks, vectors, { turn: commitTurn, lease: job.lease });
      await repository.updateFile(file, { status: 'completed', last_error: null, usage_bytes: usageBytes });
      if (file.source.kind === 'text') await context.sources.remove(store.id, file.id);
      return;
    } catch (error) {
      // A lost lease: another instance took the job over and finishes it.
      if (signal.aborted || error instanceof LeaseLost) return;
      if (isGatewayError(error) && error.retryable && attempt < INGEST_ATTEMPTS) {
        await abortableSleep(500 * 2 ** attempt, signal).catch(() => undefined);
        if (signal.aborted) return;
        continue;
      }
      const lastError = failureOf(error);
      if (lastError.code === 'server_error' && !(error instanceof IngestFailure) && !isGatewayError(error)) {
        context.logger.error('vector store ingestion failed', { vector_store_id: store.id, file_id: file.id, error: String(error) });
      }
      if (repository.file(job.storeId, job.fileId) === file) await repository.updateFile(file, { status: 'failed', last_error: lastError });
      return;
    }
  }
}

/** A failure that is the file's fault (unsupported, invalid) or a clear server-side reason. */
export class IngestFailure extends Error {
  constructor(readonly failure: FileError) {
    super(failure.message);
  }
}

function failureOf(error: unknown): FileError {
  if (error instanceof IngestFailure) return error.failure;
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'unsupported_file' || code === 'invalid_file') return { code, message: (error as Error).message };
  // A request-shaped refusal of the source itself (a URL that cannot be fetched) is the file's fault.
  if (isGatewayError(error)) return { code: error.code.startsWith('VALIDATION_') ? 'invalid_file' : 'server_error', message: `${error.code}: ${error.message}` };
  return { code: 'server_error', message: 'The file could not be processed; the gateway log has the details.' };
}
