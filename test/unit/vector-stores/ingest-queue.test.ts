import { describe, expect, it } from 'vitest';
import { IngestQueue, type IngestJob } from '../../../src/vector-stores/ingest-queue.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe('IngestQueue', () => {
  it('runs jobs in order, a few at a time, once each', async () => {
    const started: string[] = [];
    const gates = new Map<string, ReturnType<typeof deferred>>();
    const queue = new IngestQueue(async (job) => {
      started.push(job.fileId);
      const gate = deferred();
      gates.set(job.fileId, gate);
      await gate.promise;
    }, 2);
    for (const fileId of ['a', 'b', 'c', 'a']) queue.enqueue({ storeId: 's', fileId });
    await Promise.resolve();
    expect(started).toEqual(['a', 'b']);
    gates.get('a')!.resolve();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(started).toEqual(['a', 'b', 'c']);
    gates.get('b')!.resolve();
    gates.get('c')!.resolve();
    await queue.idle();
  });

  it('cancel drops a waiting job and aborts a running one; close aborts what runs', async () => {
    const seen: Array<[string, boolean]> = [];
    const queue = new IngestQueue(
      (job: IngestJob, signal: AbortSignal) =>
        new Promise<void>((resolve) => {
          signal.addEventListener('abort', () => {
            seen.push([job.fileId, signal.aborted]);
            resolve();
          });
        }),
      1,
    );
    queue.enqueue({ storeId: 's', fileId: 'running' });
    queue.enqueue({ storeId: 's', fileId: 'waiting' });
    queue.enqueue({ storeId: 's', fileId: 'last' });
    await queue.cancel({ storeId: 's', fileId: 'waiting' });
    await queue.cancel({ storeId: 's', fileId: 'running' });
    expect(seen).toEqual([['running', true]]);
    await queue.close();
    expect(seen).toEqual([
      ['running', true],
      ['last', true],
    ]);
    queue.enqueue({ storeId: 's', fileId: 'after-close' });
    await queue.idle();
    expect(seen).toHaveLength(2);
  });
});
