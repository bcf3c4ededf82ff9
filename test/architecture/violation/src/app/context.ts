// Planted for test/architecture/dependency-rules.test.ts: the app context holding a service
// that takes the app context back (a cycle of type-only imports still counts).
import type { BatchService } from '../batches/batch-service.js';

export interface AppContext {
  batches: BatchService;
}
