// Planted for test/architecture/dependency-rules.test.ts: translate/ reaching into providers/
// and doing file I/O.
import { readFileSync } from 'node:fs';
import { providerName } from '../providers/adapter.js';

export const leaked = () => providerName + readFileSync('/dev/null', 'utf8');
