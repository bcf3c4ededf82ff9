import { seal, sealInSlices, unseal } from '../crypto/sealed.js';

/**
 * Encryption at rest for store contents (DESIGN §4: chunk text, vectors and pending source bytes
 * sealed with AES-256-GCM under the data key). The additional data binds each blob to its place,
 * so a blob copied to another store or file does not open there.
 */
export interface Sealer {
  seal(plaintext: Buffer, aad: string): Buffer;
  unseal(sealed: Buffer, aad: string): Buffer;
  /** seal() of a large value given in parts, yielding to the event loop as it goes (index snapshots); unseal() opens the concatenated parts. */
  sealInSlices(plaintext: AsyncIterable<Buffer> | Iterable<Buffer>, aad: string): Promise<Buffer[]>;
}

export function keySealer(key: Buffer): Sealer {
  return {
    seal: (plaintext, aad) => seal(key, plaintext, aad),
    unseal: (sealed, aad) => unseal(key, sealed, aad),
    sealInSlices: (plaintext, aad) => sealInSlices(key, plaintext, aad),
  };
}
