import { readFileSync } from 'node:fs';

/**
 * igw's version, from the package.json next to dist/ (and src/ under the tests): read once at
 * start-up, synchronously, because commander needs it before parsing (a few hundred bytes).
 */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
