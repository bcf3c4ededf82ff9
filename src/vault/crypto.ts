import { randomBytes, scrypt } from 'node:crypto';

/**
 * The vault's key derivation (node:crypto scrypt): a 256-bit AES key from the caller's vault key
 * and the account's random salt. Records are then sealed with crypto/sealed.ts (AES-256-GCM).
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
