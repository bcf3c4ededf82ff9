// Planted for test/architecture/dependency-rules.test.ts: translate/ reaching into providers/.
import { providerName } from '../providers/adapter.js';

export const leaked = providerName;
