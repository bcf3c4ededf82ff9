// Planted: the service's half of the app ↔ batches cycle.
import type { AppContext } from '../app/context.js';

export class BatchService {
  start(app: AppContext): AppContext {
    return app;
  }
}
