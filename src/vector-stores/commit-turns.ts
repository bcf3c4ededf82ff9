/** One job's place in a store's commit order. */
export interface CommitTurn {
  /** Resolves once every earlier job of the store has committed or given up. */
  ready: Promise<void>;
  /** This job has committed or given up: the next one may go. */
  done(): void;
}

/**
 * Files of a store are ingested several at a time, but committed in the order their ingestion
 * started (the queue's arrival order): their index labels, and so every tie between equal
 * scores, come out the same on every run, whatever finished extracting or embedding first.
 * Only the short commit step waits; reading, chunking and embedding still overlap.
 */
export class CommitTurns {
  private last = new Map<string, Promise<void>>();

  take(storeId: string): CommitTurn {
    const ready = this.last.get(storeId) ?? Promise.resolve();
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    const tail = ready.then(() => finished);
    this.last.set(storeId, tail);
    // Forget a store's chain once it ran dry (no growth across the process's life).
    void tail.then(() => {
      if (this.last.get(storeId) === tail) this.last.delete(storeId);
    });
    return { ready, done };
  }
}
