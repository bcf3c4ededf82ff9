import { describe, expect, it } from 'vitest';
import { GatewayUnreachableError } from '../../../src/client/gateway-client.js';
import { IngestionTracker } from '../../../src/kb/ingestion-tracker.js';
import type { KbRemote, VectorStoreFile } from '../../../src/kb/remote.js';

/** A store whose files finish when the test says so; counts the requests the tracker sends. */
function fakeStore() {
  const status = new Map<string, string>();
  const calls = { list: 0, get: 0 };
  let down = false;
  const file = (id: string): VectorStoreFile => ({ id, object: 'vector_store.file', status: status.get(id)!, last_error: null, attributes: null });
  const remote = {
    async listFiles(_storeId: string, wanted?: string) {
      calls.list += 1;
      if (down) throw new GatewayUnreachableError('no gateway answers', 'start it');
      return [...status.keys()].filter((id) => status.get(id) === wanted).map(file);
    },
    async getFile(_storeId: string, id: string) {
      calls.get += 1;
      if (!status.has(id)) throw Object.assign(new Error('not found'), { status: 404 });
      return file(id);
    },
  } as unknown as KbRemote;
  return { status, calls, remote, goDown: () => (down = true) };
}

describe('IngestionTracker', () => {
  it('follows many files with one listing per round and one fetch per finished file', async () => {
    const store = fakeStore();
    const ids = Array.from({ length: 300 }, (_, index) => `file-${index}`);
    for (const id of ids) store.status.set(id, 'in_progress');
    const tracker = new IngestionTracker(store.remote, 'vs');
    const outcomes = Promise.all(ids.map((id) => tracker.follow(id)));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(store.calls.get).toBe(0);
    for (const id of ids) store.status.set(id, id === 'file-7' ? 'failed' : 'completed');
    const files = await outcomes;
    expect(files.map((file) => file!.status).filter((status) => status === 'completed')).toHaveLength(299);
    expect(files[7]!.status).toBe('failed');
    expect(store.calls.get).toBe(300);
    expect(store.calls.list).toBeLessThan(10);
  });

  it('reports a detached file as null and a gateway that went away as an error for every file', async () => {
    const store = fakeStore();
    store.status.set('kept', 'in_progress');
    store.status.set('gone', 'in_progress');
    const tracker = new IngestionTracker(store.remote, 'vs');
    const gone = tracker.follow('gone');
    store.status.delete('gone');
    expect(await gone).toBeNull();
    const kept = tracker.follow('kept');
    store.goDown();
    await expect(kept).rejects.toBeInstanceOf(GatewayUnreachableError);
  });
});
