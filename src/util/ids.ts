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

export const randomIds: IdGenerator = {
  next: (prefix) => `${prefix}${randomUrlSafe(24).replace(/[-_]/g, 'x')}`,
  uuid: () => randomUUID(),
};
