import { seal, unseal } from '../crypto/sealed.js';

/**
 * Encryption at rest for store contents (DESIGN §4: chunk text, vectors and pending source bytes
 * sealed with AES-256-GCM under the data key). The additional data binds each blob to its place,
 * so a blob copied to another store or file does not open there.
 */
export interface Sealer {
  seal(plaintext: Buffer, aad: string): Buffer;
  unseal(sealed: Buffer, aad: string): Buffer;
}

export function keySealer(key: Buffer): Sealer {
  return { seal: (plaintext, aad) => seal(key, plaintext, aad), unseal: (sealed, aad) => unseal(key, sealed, aad) };
}
