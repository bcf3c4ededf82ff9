import { createReadStream, createWriteStream } from 'node:fs';
import { readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pipeline as pipelineCallback } from 'node:stream';
import { createSealStream, createUnsealStream } from '../crypto/sealed-stream.js';
import { GatewayError } from '../errors/gateway-error.js';
import { ensureDataDir } from '../store/db.js';
import { JournalCollection } from '../store/journal-collection.js';
import type { Clock } from '../util/clock.js';
import type { IdGenerator } from '../util/ids.js';
import { isUploadPurpose, type FilePurpose, type FileRecord, type UploadPurpose } from './file-record.js';

/** Largest file accepted (the hosted APIs' per-file limit); batch inputs have their own 105 MB check. */
export const MAX_FILE_BYTES = 512 * 1024 * 1024;
export const FILE_ID_PREFIX = 'file-';

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
 * Stored files (DESIGN §4, §5): metadata in a journalled collection (files.json snapshot +
 * files.jsonl journal: one appended line per upload or delete), bytes sealed (src/crypto/sealed-stream,
 * AAD = file id) under files/<id>. Bytes are written to `<id>.part` first and renamed only once
 * complete and synced; the record is inserted after the rename, so a crash leaves at most an
 * orphan blob, removed at the next start. Reads stream and decrypt segment by segment.
 */
export class FileStore {
  private readonly folder: string;

  private constructor(
    private readonly records: JournalCollection<FileRecord>,
    dataDir: string,
    private readonly key: Buffer,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {
    this.folder = path.join(dataDir, 'files');
  }

  static async open(dataDir: string, key: Buffer, clock: Clock, ids: IdGenerator): Promise<FileStore> {
    await ensureDataDir(dataDir, 'files');
    const records = await JournalCollection.open<FileRecord>(dataDir, 'files', {
      key: (record) => record.id,
      meta: {},
      legacy: (document) => ({ records: (document as { files?: FileRecord[] }).files ?? [] }),
    });
    const store = new FileStore(records, dataDir, key, clock, ids);
    await store.removeOrphans();
    return store;
  }

  /** Blobs without a record: a crash between writing bytes and the record, or during delete. */
  private async removeOrphans(): Promise<void> {
    for (const name of await readdir(this.folder)) {
      if (!this.records.has(name)) await rm(path.join(this.folder, name), { force: true });
    }
  }

  blobPath(id: string): string {
    return path.join(this.folder, id);
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
      await rm(this.blobPath(id), { force: true });
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

  /** Moves a sealed temp file (from prepare()'s sealer) into the store and records it. */
  async adoptSealed(accountId: string, id: string, file: NewFile & { bytes: number }, sealedPath: string): Promise<FileRecord> {
    await rename(sealedPath, this.blobPath(id));
    return this.insert({ id, account: accountId, filename: file.filename, purpose: file.purpose, bytes: file.bytes, created_at: Math.floor(this.clock.now() / 1000) });
  }

  private async insert(record: FileRecord): Promise<FileRecord> {
    try {
      await this.records.put(record);
    } catch (error) {
      if (this.records.get(record.id) === record) await this.records.delete(record.id).catch(() => undefined);
      await rm(this.blobPath(record.id), { force: true });
      throw error;
    }
    return { ...record };
  }

  private async writeBlob(id: string, source: Readable, options: WriteOptions): Promise<number> {
    const partPath = `${this.blobPath(id)}.part`;
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
    const out = createWriteStream(partPath, { flags: 'wx', mode: 0o600, flush: true });
    try {
      await pipeline(source, counter, createSealStream(this.key, { aad: id }), out, ...(options.signal ? [{ signal: options.signal }] as const : []));
      await rename(partPath, this.blobPath(id));
    } catch (error) {
      await rm(partPath, { force: true });
      throw error;
    }
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

  /** Plaintext of a stored file, decrypted as it is read; altered bytes end the stream with an error. */
  openRead(record: FileRecord): Readable {
    const unseal = createUnsealStream(this.key, { aad: record.id });
    pipelineCallback(createReadStream(this.blobPath(record.id)), unseal, () => undefined);
    return unseal;
  }

  async readAll(record: FileRecord): Promise<Buffer> {
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
    await rm(this.blobPath(id), { force: true });
    return true;
  }
}
