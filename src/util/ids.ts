import { randomBytes, randomUUID } from 'node:crypto';

const URL_SAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Uniformly random URL-safe characters (64-letter alphabet, so one byte maps without bias). */
export function randomUrlSafe(length: number): string {
  const bytes = randomBytes(length);
  let result = '';
  for (let index = 0; index < length; index += 1) result += URL_SAFE[bytes[index]! & 63];
  return result;
}

export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** Id generator handed to endpoints through AppContext so tests can make ids deterministic. */
export interface IdGenerator {
  next(prefix: string): string;
  uuid(): string;
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Random bytes drawn in 4 KiB blocks: one syscall per ~170 ids instead of one per id. */
let pool = Buffer.alloc(0);
let poolOffset = 0;

function randomAlphanumeric(length: number): string {
  let result = '';
  while (result.length < length) {
    if (poolOffset >= pool.length) {
      pool = randomBytes(4096);
      poolOffset = 0;
    }
    const byte = pool[poolOffset++]!;
    // 248 = 4 × 62: rejecting the top bytes keeps every character equally likely.
    if (byte < 248) result += ALPHANUMERIC[byte % 62];
  }
  return result;
}

/** Ids are not secrets (keys use randomUrlSafe): 24 alphanumerics, ~143 bits, unique enough. */
export const randomIds: IdGenerator = {
  next: (prefix) => `${prefix}${randomAlphanumeric(24)}`,
  uuid: () => randomUUID(),
};
