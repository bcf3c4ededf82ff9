import { randomBytes } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { Writable } from 'node:stream';
import { rm } from 'node:fs/promises';
import type { Transform } from 'node:stream';
import path from 'node:path';
import busboy from 'busboy';
import type { ErrorCode } from '../../errors/catalog.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { RequestCall } from '../../http/request-call.js';
import { ensureDataDir } from '../../store/db.js';

/** Longest text field accepted (a prompt is far shorter). */
const FIELD_MAX_BYTES = 64 * 1024;

export interface UploadedFile {
  /** Temp file under `<dataDir>/tmp/` (mode 0600); removed by Upload.cleanup(). Empty when `held`. */
  path: string;
  /** The file's bytes (sealed when `encrypt` is set), when kept in memory (UploadLimits.holdUpToBytes). */
  held?: Buffer;
  filename: string;
  mimeType: string;
  size: number;
  /** The first bytes, for format sniffing. */
  head: Buffer;
}

export interface Upload {
  /** Text fields; a repeated name (e.g. `timestamp_granularities[]`) keeps every value. */
  fields: Map<string, string[]>;
  file: UploadedFile | undefined;
  /**
   * The caller moved the temp file away (renamed into the store): cleanup() then only waits for
   * its stream to let go, without an rm that would look for it (one fs call less per upload).
   */
  moved(tempPath: string): void;
  cleanup(): Promise<void>;
}

export interface UploadLimits {
  /** The one file field accepted; other file fields are drained and ignored. */
  fileField: string;
  maxFileBytes: number;
  /** Error code when the file is over maxFileBytes (answered at once, connection closed). */
  tooLargeCode: ErrorCode;
  tooLargeMessage: string;
  headBytes: number;
  /** Name used when the client sends none. */
  defaultFilename?: string;
  /** Encrypts the file on its way to disk (stored files: nothing lands in plaintext). */
  encrypt?: () => Transform;
  /**
   * A request whose Content-Length is at most this keeps the file in memory (`held`) instead of a
   * temp file: a small upload then costs no open, write, close and rename of its own (issue 16).
   */
  holdUpToBytes?: number;
}

/**
 * Parses a multipart/form-data request with busboy, streaming the one file to a temp file in the
 * data dir (never whole in memory). Rejects as soon as the file crosses the limit, and on client
 * aborts; the temp file is removed in every failure case (the caller removes it after success).
 */
export async function receiveUpload(call: RequestCall, limits: UploadLimits): Promise<Upload> {
  const { request } = call;
  const tmpDir = path.join(call.app.store.dataDir, 'tmp');
  await tmpDirReady(call.app.store);
  // Each temp file with its stream's 'close': remove only once the stream let go of it (an open
  // still in flight would otherwise create the file again after the rm).
  const temps: Array<{ path: string; out: WriteStream; closed: Promise<void>; moved: boolean }> = [];
  const moved = (tempPath: string) => {
    for (const temp of temps) if (temp.path === tempPath) temp.moved = true;
  };
  const cleanup = async () => {
    await Promise.all(temps.map(async (temp) => {
      temp.out.destroy();
      await temp.closed;
      if (!temp.moved) await rm(temp.path, { force: true });
    }));
  };

  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: request.headers,
      // busboy reports 'limit' on reaching fileSize: + 1 so a file of exactly the maximum passes.
      limits: { fileSize: limits.maxFileBytes + 1, files: 1, fields: 32, fieldSize: FIELD_MAX_BYTES, parts: 64 },
    });
  } catch (error) {
    throw new GatewayError('VALIDATION_4005', `Send the request as multipart/form-data with the file in the "${limits.fileField}" field (${(error as Error).message}).`, { field: 'body' }, { cause: error });
  }

  const fields = new Map<string, string[]>();
  let file: UploadedFile | undefined;

  const done = new Promise<void>((resolve, reject) => {
    let settled = false;
    let pendingWrite: Promise<void> = Promise.resolve();
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      request.unpipe(parser);
      reject(error);
    };

    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) {
        fail(new GatewayError('VALIDATION_4005', `Field "${name}" is longer than ${FIELD_MAX_BYTES} bytes.`, { field: name }));
        request.resume();
        return;
      }
      const values = fields.get(name) ?? [];
      values.push(value);
      fields.set(name, values);
    });
    parser.on('file', (name, stream, info) => {
      if (name !== limits.fileField || file !== undefined) {
        stream.resume();
        return;
      }
      const length = Number(request.headers['content-length']);
      const hold = limits.holdUpToBytes !== undefined && Number.isInteger(length) && length <= limits.holdUpToBytes;
      const tempPath = hold ? '' : path.join(tmpDir, `upload-${call.requestId}-${randomBytes(6).toString('hex')}`);

      const uploaded: UploadedFile = { path: tempPath, filename: info.filename || (limits.defaultFilename ?? 'audio'), mimeType: info.mimeType, size: 0, head: Buffer.alloc(0) };
      file = uploaded;
      let out: Writable;
      if (hold) {
        const parts: Buffer[] = [];
        out = new Writable({
          write(chunk: Buffer, _encoding, callback) {
            parts.push(chunk);
            callback();
          },
          final(callback) {
            uploaded.held = Buffer.concat(parts);
            callback();
          },
        });
      } else {
        const stream = createWriteStream(tempPath, { flags: 'wx', mode: 0o600 });
        temps.push({ path: tempPath, out: stream, moved: false, closed: new Promise<void>((resolveClose) => stream.once('close', () => resolveClose())) });
        out = stream;
      }
      pendingWrite = new Promise<void>((resolveWrite, rejectWrite) => {
        out.once('finish', resolveWrite);
        out.once('error', rejectWrite);
      });
      pendingWrite.catch(fail);
      // The folder was removed under the running server: this upload fails, the next creates it again.
      out.once('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') tmpDirs.delete(call.app.store);
      });
      stream.on('data', (chunk: Buffer) => {
        uploaded.size += chunk.length;
        if (uploaded.head.length < limits.headBytes) uploaded.head = Buffer.concat([uploaded.head, chunk.subarray(0, limits.headBytes - uploaded.head.length)]);
      });
      const encrypt = limits.encrypt?.();
      if (encrypt) {
        encrypt.on('error', fail);
        encrypt.pipe(out);
      }
      stream.once('limit', () => {
        encrypt?.destroy();
        out.destroy();
        // Answer now and close the connection instead of reading the rest of the upload.
        call.headers['connection'] = 'close';
        fail(new GatewayError(limits.tooLargeCode, limits.tooLargeMessage, { field: limits.fileField, limit_bytes: limits.maxFileBytes }));
        request.resume();
      });
      // The part's stream fails on its own when the form is cut inside the file (pipe does not
      // forward that error; unheard, it would stop the process).
      stream.on('error', (error: Error) => fail(new GatewayError('VALIDATION_4005', `The multipart body is malformed (${error.message}).`, { field: limits.fileField }, { cause: error })));
      stream.pipe(encrypt ?? out);
    });
    parser.once('close', () => {
      pendingWrite.then(() => {
        if (settled) return;
        settled = true;
        resolve();
      }, fail);
    });
    // `on`, not `once`: busboy can report a second fault (a malformed part header, then the
    // unexpected end of the form), and an 'error' with no listener left stops the process.
    parser.on('error', (error: Error) => fail(new GatewayError('VALIDATION_4005', `The multipart body is malformed (${error.message}).`, { field: 'body' }, { cause: error })));
    request.once('aborted', () => fail(new GatewayError('VALIDATION_4005', 'The client closed the connection before the upload was complete.', { field: 'file' })));
    call.signal.addEventListener('abort', () => fail(call.signal.reason), { once: true });
    request.pipe(parser);
  });

  try {
    await done;
  } catch (error) {
    await cleanup();
    throw error;
  }
  return { fields, file, moved, cleanup };
}

/**
 * `<dataDir>/tmp` is created once per store (the gateway removes it at start, then it stays), not
 * with two mkdir calls per upload: each fs call is a round trip through the thread pool, and the
 * upload path is paid per file at ingestion rates (issue 16). A failed mkdir is retried next time.
 */
const tmpDirs = new WeakMap<object, Promise<void>>();
function tmpDirReady(store: { dataDir: string }): Promise<void> {
  let ready = tmpDirs.get(store);
  if (ready === undefined) {
    ready = ensureDataDir(store.dataDir, 'tmp');
    tmpDirs.set(store, ready);
    ready.catch(() => tmpDirs.delete(store));
  }
  return ready;
}
