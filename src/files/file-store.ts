import path from 'node:path';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline as pipelineCallback } from 'node:stream';
import { createSealStream, createUnsealStream, unsealWhole } from '../crypto/sealed-stream.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Collection } from '../store/collection.js';
import { ensureDataDir } from '../store/db.js';
import { JournalCollection } from '../store/journal-collection.js';
import type { CollectionOpener } from '../store/postgres/pg-collection.js';
import { DataDirFileBytes, type FileBytes } from './file-bytes.js';
import { RecentUploads } from './recent-uploads.js';
import type { Clock } from '../util/clock.js';
import type { IdGenerator } from '../util/ids.js';
import { isUploadPurpose, type FilePurpose, type FileRecord, type UploadPurpose } from './file-record.js';

/** Largest file accepted (the hosted APIs' per-file limit); batch inputs have their own 105 MB check. */
export const MAX_FILE_BYTES = 512 * 1024 * 1024;
export const FILE_ID_PREFIX = 'file-';
/** Files up to this size are read whole by readAll (it returns them whole anyway); larger ones stream. */
const WHOLE_READ_BYTES = 1024 * 1024;

export interface NewFile {
  filename: string;
  purpose: FilePurpose;
  /** Expected plaintext size, when the caller knows it: a different count is an error. */
  bytes?: number;
}

export interface WriteOptions {
  /** Refuse (VALIDATION_4013) as soon as the plaintext crosses this many bytes. */
  maxBytes?: number;
  signal?: AbortSignal;
}

export interface ListOptions {
  purpose?: string;
  /** Newest first by default, like the hosted API. */
  order?: 'asc' | 'desc';
  after?: string;
  limit?: number;
}

export interface FilePage {
  data: FileRecord[];
  has_more: boolean;
}

/**
 * Stored files (DESIGN §4, §5): records in a Collection, bytes sealed (src/crypto/sealed-stream,
 * AAD = file id) through a FileBytes. With the data dir: a journalled collection (files.json
 * snapshot + files.jsonl journal) and blobs under files/<id>; in team mode: a PostgresCollection
 * and parts in PostgreSQL, so every instance serves every file. The bytes are complete and
 * durable before the record is inserted, so a crash leaves at most orphan bytes, removed at a
 * later start. Reads stream and decrypt segment by segment.
 */
export class FileStore {
  /** Small uploads' sealed bytes until ingestion reads them (recent-uploads.ts). */
  private readonly recent = new RecentUploads();

  private constructor(
    private readonly records: Collection<FileRecord>,
    private readonly blobs: FileBytes,
    private readonly key: Buffer,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  static async open(dataDir: string, key: Buffer, clock: Clock, ids: IdGenerator): Promise<FileStore> {
    await ensureDataDir(dataDir, 'files');
    const records = await JournalCollection.open<FileRecord>(dataDir, 'files', {
      key: (record) => record.id,
      meta: {},
      legacy: (document) => ({ records: (document as { files?: FileRecord[] }).files ?? [] }),
    });
    return FileStore.withStorage(records, new DataDirFileBytes(path.join(dataDir, 'files')), key, clock, ids);
  }

  /** Team mode (issue 19): records and bytes in PostgreSQL, shared by every instance. */
  static async openTeam(collections: CollectionOpener, bytes: FileBytes, key: Buffer, clock: Clock, ids: IdGenerator): Promise<FileStore> {
    const records = await collections.open<FileRecord>('files', { key: (record) => record.id });
    return FileStore.withStorage(records, bytes, key, clock, ids);
  }

  private static async withStorage(records: Collection<FileRecord>, bytes: FileBytes, key: Buffer, clock: Clock, ids: IdGenerator): Promise<FileStore> {
    // Bytes without a record: a crash between writing bytes and the record, or during delete.
    await bytes.removeOrphans((id) => records.has(id));
    return new FileStore(records, bytes, key, clock, ids);
  }

  /** A user upload (purpose batch, assistants or user_data), e.g. from another service. */
  async create(accountId: string, file: NewFile & { purpose: UploadPurpose }, source: Readable, options: WriteOptions = {}): Promise<FileRecord> {
    if (!isUploadPurpose(file.purpose)) throw new TypeError(`not an upload purpose: ${file.purpose}`);
    return this.createFromStream(accountId, file, source, options);
  }

  /** Any purpose, including `batch_output` (batch runner). */
  async createFromStream(accountId: string, file: NewFile, source: Readable, options: WriteOptions = {}): Promise<FileRecord> {
    const id = this.ids.next(FILE_ID_PREFIX);
    const bytes = await this.writeBlob(id, source, options);
    if (file.bytes !== undefined && file.bytes !== bytes) {
      await this.blobs.remove(id);
      throw new Error(`file ${id}: expected ${file.bytes} bytes, got ${bytes}`);
    }
    return this.insert({ id, account: accountId, filename: file.filename, purpose: file.purpose, bytes, created_at: Math.floor(this.clock.now() / 1000) });
  }

  /**
   * Id and sealing stream for a caller that writes the sealed bytes itself (the upload endpoint
   * streams through busboy into a temp file); finish with adoptSealed().
   */
  prepare(): { id: string; sealer: () => Transform } {
    const id = this.ids.next(FILE_ID_PREFIX);
    return { id, sealer: () => createSealStream(this.key, { aad: id }) };
  }

  /**
   * Moves a sealed temp file (from prepare()'s sealer) into the store and records it. `onMoved`
   * runs once the temp path is gone (renamed, or copied and removed), before the record is written.
   */
  async adoptSealed(accountId: string, id: string, file: NewFile & { bytes: number }, sealedPath: string, onMoved?: () => void): Promise<FileRecord> {
    await this.blobs.adopt(id, sealedPath);
    onMoved?.();
    return this.insert({ id, account: accountId, filename: file.filename, purpose: file.purpose, bytes: file.bytes, created_at: Math.floor(this.clock.now() / 1000) });
  }

  /** Stores a small file sealed in memory (from prepare()'s sealer) and records it. */
  async storeSealed(accountId: string, id: string, file: NewFile & { bytes: number }, sealed: Buffer): Promise<FileRecord> {
    if (this.blobs.writeSealed !== undefined) await this.blobs.writeSealed(id, sealed);
    else await this.blobs.write(id, Readable.from([sealed]));
    const record = await this.insert({ id, account: accountId, filename: file.filename, purpose: file.purpose, bytes: file.bytes, created_at: Math.floor(this.clock.now() / 1000) });
    this.recent.keep(id, sealed);
    return record;
  }

  private async insert(record: FileRecord): Promise<FileRecord> {
    try {
      await this.records.put(record);
    } catch (error) {
      if (this.records.get(record.id) === record) await this.records.delete(record.id).catch(() => undefined);
      await this.blobs.remove(record.id);
      throw error;
    }
    return { ...record };
  }

  private async writeBlob(id: string, source: Readable, options: WriteOptions): Promise<number> {
    let bytes = 0;
    const maxBytes = options.maxBytes ?? MAX_FILE_BYTES;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback: TransformCallback) {
        bytes += chunk.length;
        if (bytes > maxBytes) {
          callback(new GatewayError('VALIDATION_4013', `The file is larger than ${maxBytes} bytes.`, { field: 'file', limit_bytes: maxBytes }));
          return;
        }
        callback(null, chunk);
      },
    });
    const sealed = createSealStream(this.key, { aad: id });
    pipelineCallback(source, counter, sealed, (error) => {
      if (error) sealed.destroy(error);
    });
    await this.blobs.write(id, sealed, options.signal);
    return bytes;
  }

  /** The caller's own file; another account's file is undefined, like a missing one. */
  async get(accountId: string, id: string): Promise<FileRecord | undefined> {
    const record = this.records.get(id);
    return record !== undefined && record.account === accountId ? { ...record } : undefined;
  }

  async list(accountId: string, options: ListOptions = {}): Promise<FilePage> {
    let files = [...this.records.values()].filter((record) => record.account === accountId && (options.purpose === undefined || record.purpose === options.purpose));
    // Records are appended in creation order; newest first unless asked otherwise.
    if ((options.order ?? 'desc') === 'desc') files = files.reverse();
    if (options.after !== undefined) {
      const index = files.findIndex((record) => record.id === options.after);
      files = index === -1 ? [] : files.slice(index + 1);
    }
    const limit = options.limit ?? 10_000;
    return { data: files.slice(0, limit).map((record) => ({ ...record })), has_more: files.length > limit };
  }

  /** Every account's records, oldest first (`igw migrate --from-data-dir` copies them all). */
  all(): FileRecord[] {
    return [...this.records.values()].map((record) => ({ ...record }));
  }

  /** Plaintext of a stored file, decrypted as it is read; altered bytes end the stream with an error. */
  openRead(record: FileRecord): Readable {
    const unseal = createUnsealStream(this.key, { aad: record.id });
    pipelineCallback(this.blobs.openSealed(record.id), unseal, () => undefined);
    return unseal;
  }

  async readAll(record: FileRecord): Promise<Buffer> {
    // A just-uploaded small file from memory (still sealed, checked as from disk); else a small
    // file (ingestion's usual one) read whole and opened at once: no streams.
    const recent = this.recent.take(record.id);
    if (recent !== undefined) return unsealWhole(this.key, recent, { aad: record.id });
    if (record.bytes <= WHOLE_READ_BYTES && this.blobs.readSealed !== undefined) return unsealWhole(this.key, await this.blobs.readSealed(record.id), { aad: record.id });
    const parts: Buffer[] = [];
    for await (const part of this.openRead(record)) parts.push(part as Buffer);
    return Buffer.concat(parts);
  }

  /** Writes what is queued (shutdown). */
  close(): Promise<void> {
    return this.records.close();
  }

  /** Removes the record, then the bytes. Returns false when the file is not the caller's. */
  async delete(accountId: string, id: string): Promise<boolean> {
    const record = this.records.get(id);
    if (record === undefined || record.account !== accountId) return false;
    await this.records.delete(id);
    this.recent.drop(id);
    await this.blobs.remove(id);
    return true;
  }
}
