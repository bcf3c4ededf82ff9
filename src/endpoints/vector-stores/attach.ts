import { GatewayError } from '../../errors/gateway-error.js';
import type { RequestCall } from '../../http/request-call.js';
import { fileChunking } from '../../vector-stores/chunking.js';
import type { Attributes } from '../../vector-stores/filters.js';
import type { StoreChunking } from '../../vector-stores/records.js';
import type { NewFile } from '../../vector-stores/service.js';

export interface AttachEntry {
  file_id: string;
  attributes?: Attributes | null | undefined;
  chunking_strategy?: unknown;
}

/**
 * Files of the Files API to attach (create with file_ids, attach, file batches): each must be
 * the caller's own file (else 404 RESOURCE_5410); its chunking is its own, else the request's,
 * else the store's, else auto.
 */
export async function attachableFiles(
  call: RequestCall,
  entries: readonly AttachEntry[],
  storeDefault: StoreChunking | null,
  defaults: { attributes?: Attributes | null | undefined; chunking_strategy?: unknown },
): Promise<NewFile[]> {
  const requestDefault = defaults.chunking_strategy === undefined ? storeDefault : fileChunking(defaults.chunking_strategy, storeDefault);
  const files: NewFile[] = [];
  for (const entry of entries) {
    const record = await call.app.files.get(call.account.id, entry.file_id);
    if (record === undefined) throw new GatewayError('RESOURCE_5410', `No file with id "${entry.file_id}": upload it with POST /v1/files first.`, { field: 'file_id' });
    files.push({
      id: record.id,
      filename: record.filename,
      source: { kind: 'file' },
      attributes: entry.attributes ?? defaults.attributes ?? {},
      chunking_strategy: fileChunking(entry.chunking_strategy, requestDefault),
      key_id: call.principal.keyId,
    });
  }
  return files;
}
