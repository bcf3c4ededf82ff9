import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayApiError, GatewayUnreachableError } from '../../../src/client/gateway-client.js';
import { createPathFilter } from '../../../src/kb/filter.js';
import type { KbRemote, VectorStoreFile } from '../../../src/kb/remote.js';
import { FolderSync, type SyncEvent } from '../../../src/kb/sync.js';

const roots: string[] = [];
afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
});

/** A store where uploading `note.md` either throws `uploadError` or ends its ingestion with `outcome`. */
function remoteWith(options: { uploadError?: unknown; outcome?: Pick<VectorStoreFile, 'status' | 'last_error'> }): KbRemote {
  return {
    syncState: async () => [],
    async uploadAndAttach() {
      if (options.uploadError !== undefined) throw options.uploadError;
      return { id: 'file-1', object: 'vector_store.file', status: 'in_progress', last_error: null, attributes: null };
    },
    listFiles: async () => [],
    getFile: async () => ({ id: 'file-1', object: 'vector_store.file', attributes: null, ...options.outcome! }),
  } as unknown as KbRemote;
}

async function syncOnce(remote: KbRemote) {
  const root = await mkdtemp(path.join(tmpdir(), 'igw-kb-sync-'));
  roots.push(root);
  await writeFile(path.join(root, 'note.md'), 'A note.\n');
  const events: SyncEvent[] = [];
  let faults = 0;
  const sync = new FolderSync(remote, 'vs', root, createPathFilter(root), (event) => events.push(event), () => (faults += 1));
  await sync.fullSync();
  await sync.settled();
  return { sync, events, faults };
}

describe('kb sync: what counts as a failed file', () => {
  it.each([
    ['the gateway does not answer', { uploadError: new GatewayUnreachableError('no gateway answers at http://127.0.0.1:1', 'start one') }],
    ['the gateway answers 503', { uploadError: new GatewayApiError(503, 'SYSTEM_9003', 'shutting down', undefined) }],
    ['ingestion ends with a server error', { outcome: { status: 'failed', last_error: { code: 'server_error', message: 'the embedding provider is down' } } }],
  ])('%s: the file waits to be sent again, it is not failed', async (_name, options) => {
    const { sync, events, faults } = await syncOnce(remoteWith(options));
    expect(sync.failures.size).toBe(0);
    expect([...sync.waiting.keys()]).toEqual(['note.md']);
    expect(events.filter((event) => event.type === 'failed')).toEqual([]);
    expect(events).toContainEqual(expect.objectContaining({ type: 'waiting', path: 'note.md' }));
    expect(faults).toBe(1);
  });

  it.each([
    ['a file the gateway refuses', { uploadError: new GatewayApiError(400, 'VALIDATION_4005', 'unsupported file type', undefined) }],
    ['a file that cannot be read', { outcome: { status: 'failed', last_error: { code: 'unsupported_file', message: 'binary file' } } }],
  ])('%s: the file failed, for its own reason', async (_name, options) => {
    const { sync, faults } = await syncOnce(remoteWith(options));
    expect([...sync.failures.keys()]).toEqual(['note.md']);
    expect(sync.waiting.size).toBe(0);
    expect(faults).toBe(0);
  });
});
