import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Small sealed values (chunk text, metadata blobs): AES-256-GCM with a random 96-bit nonce.
 * Layout: version (1 byte) | nonce (12) | ciphertext | tag (16). The optional `aad` binds the
 * value to its context (e.g. a record id) so a sealed value moved elsewhere does not open.
 */
const VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const OVERHEAD = 1 + NONCE_BYTES + TAG_BYTES;

/** Opening failed: wrong key, wrong aad, or the bytes were altered. */
export class SealedDataError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SealedDataError';
  }
}

function checkKey(key: Buffer): void {
  if (key.length !== 32) throw new TypeError(`AES-256-GCM needs a 32-byte key, got ${key.length} bytes`);
}

export function seal(key: Buffer, plaintext: Buffer, aad?: string): Buffer {
  checkKey(key);
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  if (aad !== undefined) cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([Buffer.of(VERSION), nonce, body, cipher.getAuthTag()]);
}

export function unseal(key: Buffer, sealed: Buffer, aad?: string): Buffer {
  checkKey(key);
  if (sealed.length < OVERHEAD) throw new SealedDataError('sealed value is too short');
  if (sealed[0] !== VERSION) throw new SealedDataError(`unknown sealed value version ${sealed[0]}`);
  const nonce = sealed.subarray(1, 1 + NONCE_BYTES);
  const tag = sealed.subarray(sealed.length - TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  decipher.setAuthTag(tag);
  if (aad !== undefined) decipher.setAAD(Buffer.from(aad, 'utf8'));
  try {
    return Buffer.concat([decipher.update(sealed.subarray(1 + NONCE_BYTES, sealed.length - TAG_BYTES)), decipher.final()]);
  } catch (error) {
    throw new SealedDataError('sealed value failed authentication (wrong key or altered data)', { cause: error });
  }
}

/** Plaintext bytes sealed between two yields to the event loop by sealInSlices (a few ms of AES-GCM). */
const SLICE_BYTES = 4 * 1024 * 1024;

/**
 * seal() for large values built in parts (index snapshots of tens of MB): the same layout, so
 * unseal() opens the concatenated result, but the cipher runs a slice at a time with a turn of
 * the event loop in between, so requests keep being answered while it runs. Returns the sealed
 * value as parts, in order (write them out as one file).
 */
export async function sealInSlices(key: Buffer, plaintext: AsyncIterable<Buffer> | Iterable<Buffer>, aad?: string): Promise<Buffer[]> {
  checkKey(key);
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  if (aad !== undefined) cipher.setAAD(Buffer.from(aad, 'utf8'));
  const parts: Buffer[] = [Buffer.of(VERSION), nonce];
  for await (const part of plaintext) {
    for (let offset = 0; offset < part.length; offset += SLICE_BYTES) {
      parts.push(cipher.update(part.subarray(offset, offset + SLICE_BYTES)));
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  parts.push(cipher.final(), cipher.getAuthTag());
  return parts;
}
