import type { AppContext } from '../../app/context.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { fetchUrlDocument } from '../fetch-url.js';
import type { DocumentInput } from '../types.js';
import { CONVERT_MAX_BYTES, CONVERT_TIMEOUT_MS } from './limits.js';

/** A document named by reference: a file of the Files API, or a URL fetched through the SSRF guard. */
export type DocumentReference = { file_id: string } | { url: string };

export async function loadDocument(app: AppContext, accountId: string, reference: DocumentReference, signal: AbortSignal, field = ''): Promise<DocumentInput> {
  const prefix = field === '' ? '' : `${field}.`;
  if ('file_id' in reference) {
    const record = await app.files.get(accountId, reference.file_id);
    if (record === undefined) throw new GatewayError('RESOURCE_5410', `No file "${reference.file_id}" in this account; upload it with POST /v1/files first.`, { field: `${prefix}file_id` });
    if (record.bytes > CONVERT_MAX_BYTES) {
      throw new GatewayError('VALIDATION_4013', `The file is larger than ${CONVERT_MAX_BYTES / (1024 * 1024)} MB; split it and convert the parts.`, { field: `${prefix}file_id`, limit_bytes: CONVERT_MAX_BYTES });
    }
    return { bytes: await app.files.readAll(record), filename: record.filename };
  }
  if (!/^https?:\/\//i.test(reference.url)) throw new GatewayError('VALIDATION_4005', 'url must be an absolute http(s) URL.', { field: `${prefix}url` });
  const fetched = await fetchUrlDocument(reference.url, { maxBytes: CONVERT_MAX_BYTES, timeoutMs: CONVERT_TIMEOUT_MS, allowPrivate: app.config.server.allow_private_urls, signal });
  return { bytes: fetched.bytes, filename: fetched.filename, ...(fetched.mimeType === undefined ? {} : { mimeType: fetched.mimeType }) };
}
