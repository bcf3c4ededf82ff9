import { createCipheriv, createDecipheriv, randomBytes, scrypt } from 'node:crypto';

/**
 * Vault cryptography (node:crypto only): a 256-bit key derived from the caller's vault key with
 * scrypt, and AES-256-GCM with a fresh 96-bit IV per record. The record's identity is the
 * additional authenticated data, so a record copied under another id or kind does not open.
 */

export interface KdfParams {
  name: 'scrypt';
  /** base64 */
  salt: string;
  N: number;
  r: number;
  p: number;
}

/** OWASP's scrypt baseline (N=2^17 is the stronger choice; 2^15 keeps a first unlock near 100 ms). */
export const DEFAULT_KDF = { N: 2 ** 15, r: 8, p: 1 } as const;

export function newKdfParams(cost: { N: number; r: number; p: number } = DEFAULT_KDF): KdfParams {
  return { name: 'scrypt', salt: randomBytes(16).toString('base64'), ...cost };
}

export function deriveKey(secret: string, params: KdfParams): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // scrypt needs 128·N·r bytes; allow twice that so the default 32 MiB cap never refuses.
    scrypt(secret.normalize('NFC'), Buffer.from(params.salt, 'base64'), 32, { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r + 1024 * 1024 }, (error, key) =>
      error === null ? resolve(key) : reject(error),
    );
  });
}

export interface Sealed {
  iv: string;
  tag: string;
  data: string;
}

export function seal(key: Buffer, plaintext: string, aad: string): Sealed {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
}

/** Throws when the key is wrong or the record was altered (GCM tag mismatch). */
export function unseal(key: Buffer, sealed: Sealed, aad: string): string {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
}
