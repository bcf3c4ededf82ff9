import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { SealedDataError } from './sealed.js';

/**
 * Large contents (uploaded files, batch output) encrypted as a sequence of independently
 * authenticated AES-256-GCM segments (the "STREAM" construction), so a reader decrypts as it goes
 * without holding the whole file, and any change is detected:
 *
 *   header  = magic "IGS1" (4) | segment size (uint32 BE) | salt (16)
 *   segment = ciphertext (segment size bytes; the last one 0..segment size) | tag (16)
 *
 * Each file gets its own key, HKDF-SHA256(data key, salt), so nonces never repeat across files;
 * the nonce of segment i is 7 zero bytes | i (uint32 BE) | last flag (1 byte). A reordered
 * segment fails (wrong counter), a file cut at a segment boundary fails (its new last segment
 * was sealed without the last flag), and the header is authenticated as AAD of every segment.
 */
export const DEFAULT_SEGMENT_BYTES = 64 * 1024;
const MAGIC = Buffer.from('IGS1', 'latin1');
const SALT_BYTES = 16;
const HEADER_BYTES = MAGIC.length + 4 + SALT_BYTES;
const TAG_BYTES = 16;
const MAX_SEGMENT_BYTES = 16 * 1024 * 1024;
const MAX_SEGMENTS = 0xffffffff;

export interface SealedStreamOptions {
  /** Context bound to every segment (e.g. the file id); the reader must pass the same. */
  aad?: string;
}

export interface SealStreamOptions extends SealedStreamOptions {
  segmentBytes?: number;
}

/** Recent per-file keys by data key, then salt (hex): see fileKey. */
const recentKeys = new WeakMap<Buffer, Map<string, Buffer>>();
/** Enough for the files uploaded while ingestion catches up with them (~100 bytes an entry). */
const RECENT_KEYS = 1024;

/**
 * The file's own key, HKDF-SHA256(data key, salt). A file sealed on upload is read back moments
 * later by its ingestion, so the last RECENT_KEYS derivations are kept (one hkdfSync less per
 * ingested file, ~0.07 ms of the event loop, issue 16); the data key itself is in memory anyway.
 */
function fileKey(key: Buffer, salt: Buffer): Buffer {
  if (key.length !== 32) throw new TypeError(`AES-256-GCM needs a 32-byte key, got ${key.length} bytes`);
  let recent = recentKeys.get(key);
  if (recent === undefined) {
    recent = new Map();
    recentKeys.set(key, recent);
  }
  const name = salt.toString('hex');
  const known = recent.get(name);
  if (known !== undefined) return known;
  const derived = Buffer.from(hkdfSync('sha256', key, salt, 'igw sealed-stream v1', 32));
  if (recent.size >= RECENT_KEYS) recent.delete(recent.keys().next().value!);
  recent.set(name, derived);
  return derived;
}

function segmentNonce(index: number, last: boolean): Buffer {
  const nonce = Buffer.alloc(12);
  nonce.writeUInt32BE(index, 7);
  nonce[11] = last ? 1 : 0;
  return nonce;
}

function segmentAad(header: Buffer, aad: string | undefined): Buffer {
  return aad === undefined ? header : Buffer.concat([header, Buffer.from(aad, 'utf8')]);
}

/** Size on disk of `plainBytes` sealed with `segmentBytes` segments (for checks and tests). */
export function sealedSize(plainBytes: number, segmentBytes = DEFAULT_SEGMENT_BYTES): number {
  // The last segment carries 1..segmentBytes bytes (0 only for empty contents).
  const segments = Math.max(1, Math.ceil(plainBytes / segmentBytes));
  return HEADER_BYTES + plainBytes + segments * TAG_BYTES;
}

/** Collects chunks and hands out exact-size slices without re-concatenating on every write. */
class ByteQueue {
  private chunks: Buffer[] = [];
  length = 0;

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.length += chunk.length;
  }

  take(count: number): Buffer {
    if (count > this.length) throw new RangeError('ByteQueue.take past the end');
    const first = this.chunks[0];
    if (first && first.length >= count) {
      // Common case: the head chunk alone covers the request.
      const taken = first.subarray(0, count);
      if (first.length === count) this.chunks.shift();
      else this.chunks[0] = first.subarray(count);
      this.length -= count;
      return taken;
    }
    const parts: Buffer[] = [];
    let needed = count;
    while (needed > 0) {
      const head = this.chunks[0]!;
      if (head.length <= needed) {
        parts.push(head);
        this.chunks.shift();
        needed -= head.length;
      } else {
        parts.push(head.subarray(0, needed));
        this.chunks[0] = head.subarray(needed);
        needed = 0;
      }
    }
    this.length -= count;
    return Buffer.concat(parts, count);
  }
}

/** Plaintext in, sealed bytes out. */
export function createSealStream(key: Buffer, options: SealStreamOptions = {}): Transform {
  const segmentBytes = options.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
  if (!Number.isInteger(segmentBytes) || segmentBytes < 1 || segmentBytes > MAX_SEGMENT_BYTES) {
    throw new RangeError(`segmentBytes must be an integer in [1, ${MAX_SEGMENT_BYTES}]`);
  }
  const salt = randomBytes(SALT_BYTES);
  const header = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(header, 0);
  header.writeUInt32BE(segmentBytes, MAGIC.length);
  salt.copy(header, MAGIC.length + 4);
  const subkey = fileKey(key, salt);
  const aad = segmentAad(header, options.aad);
  const pending = new ByteQueue();
  let index = 0;

  const sealSegment = (plain: Buffer, last: boolean): Buffer => {
    if (index >= MAX_SEGMENTS) throw new RangeError('sealed stream is too long');
    const cipher = createCipheriv('aes-256-gcm', subkey, segmentNonce(index, last), { authTagLength: TAG_BYTES });
    cipher.setAAD(aad);
    const body = cipher.update(plain);
    cipher.final();
    index += 1;
    return Buffer.concat([body, cipher.getAuthTag()]);
  };

  let headerSent = false;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      try {
        if (!headerSent) {
          this.push(header);
          headerSent = true;
        }
        pending.push(chunk);
        // Keep at least one byte back: only at the end do we know which segment is the last.
        while (pending.length > segmentBytes) this.push(sealSegment(pending.take(segmentBytes), false));
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
    flush(callback: TransformCallback) {
      try {
        if (!headerSent) this.push(header);
        this.push(sealSegment(pending.take(pending.length), true));
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
  });
}

/**
 * The reading side, fed in pieces: `push` returns the segments it could open, `end` the last one.
 * Throws SealedDataError on any alteration or truncation.
 */
function createOpener(key: Buffer, options: SealedStreamOptions): { push(chunk: Buffer): Buffer[]; end(): Buffer } {
  if (key.length !== 32) throw new TypeError(`AES-256-GCM needs a 32-byte key, got ${key.length} bytes`);
  const pending = new ByteQueue();
  let subkey: Buffer | undefined;
  let aad: Buffer | undefined;
  let segmentBytes = 0;
  let index = 0;

  const readHeader = (): boolean => {
    if (subkey) return true;
    if (pending.length < HEADER_BYTES) return false;
    const header = pending.take(HEADER_BYTES);
    if (!header.subarray(0, MAGIC.length).equals(MAGIC)) throw new SealedDataError('not a sealed stream (bad magic)');
    segmentBytes = header.readUInt32BE(MAGIC.length);
    if (segmentBytes < 1 || segmentBytes > MAX_SEGMENT_BYTES) throw new SealedDataError('sealed stream header is corrupt');
    subkey = fileKey(key, header.subarray(MAGIC.length + 4));
    // A copy of the header (it is a view of the caller's chunk) only when no aad follows it: with one, segmentAad copies both.
    aad = options.aad === undefined ? Buffer.from(header) : segmentAad(header, options.aad);
    return true;
  };

  const openSegment = (sealed: Buffer, last: boolean): Buffer => {
    if (sealed.length < TAG_BYTES) throw new SealedDataError('sealed stream is truncated');
    const decipher = createDecipheriv('aes-256-gcm', subkey!, segmentNonce(index, last), { authTagLength: TAG_BYTES });
    decipher.setAAD(aad!);
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    const body = decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES));
    try {
      decipher.final();
    } catch (error) {
      throw new SealedDataError(`sealed stream segment ${index} failed authentication (wrong key, altered, reordered or truncated data)`, { cause: error });
    }
    index += 1;
    return body;
  };

  return {
    push(chunk: Buffer): Buffer[] {
      pending.push(chunk);
      const opened: Buffer[] = [];
      if (readHeader()) {
        const full = segmentBytes + TAG_BYTES;
        // A full segment followed by more bytes cannot be the last one.
        while (pending.length > full) opened.push(openSegment(pending.take(full), false));
      }
      return opened;
    },
    end(): Buffer {
      if (!readHeader()) throw new SealedDataError('sealed stream is truncated (no header)');
      return openSegment(pending.take(pending.length), true);
    },
  };
}

/** Sealed bytes in, plaintext out; errors with SealedDataError on any alteration or truncation. */
export function createUnsealStream(key: Buffer, options: SealedStreamOptions = {}): Transform {
  const opener = createOpener(key, options);
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      try {
        for (const plain of opener.push(chunk)) this.push(plain);
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
    flush(callback: TransformCallback) {
      try {
        this.push(opener.end());
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
  });
}

/** A whole sealed stream held in memory (a small stored file), opened at once: the same checks as createUnsealStream. */
export function unsealWhole(key: Buffer, sealed: Buffer, options: SealedStreamOptions = {}): Buffer {
  const opener = createOpener(key, options);
  const parts = opener.push(sealed);
  parts.push(opener.end());
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}
