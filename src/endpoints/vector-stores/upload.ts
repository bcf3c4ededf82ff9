import { z } from 'zod';
import { GatewayError } from '../../errors/gateway-error.js';
import type { FileRecord } from '../../files/file-record.js';
import { MAX_FILE_BYTES } from '../../files/file-store.js';
import type { RequestCall } from '../../http/request-call.js';
import { fileChunking } from '../../vector-stores/chunking.js';
import type { StaticChunking } from '../../vector-stores/records.js';
import { receiveUpload } from '../shared/multipart-upload.js';
import { parseRequest } from '../validation/parse.js';
import { sendFile } from './files.js';
import { attributesSchema } from './schemas.js';

const KNOWN_FIELDS = new Set(['purpose', 'attributes', 'chunking_strategy']);
const attributesField = z.object({ attributes: attributesSchema }).strict();

function jsonField(upload: { fields: Map<string, string[]> }, name: string): unknown {
  const raw = upload.fields.get(name)?.[0];
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw new GatewayError('VALIDATION_4005', `${name} must be a JSON object.`, { field: name });
  }
}

/**
 * POST /v1/vector_stores/{id}/files/upload: multipart `file` (optional `attributes` and
 * `chunking_strategy` as JSON fields). The bytes become a file of the Files API (purpose
 * assistants, sealed on their way to disk) attached to the store, as the SDK's upload helper does.
 */
export async function handleVectorStoreUpload(call: RequestCall): Promise<void> {
  const service = call.app.vectorStores;
  const store = await service.requireActiveStore(call.account.id, call.params['vector_store_id']!);
  const prepared = call.app.files.prepare();
  const upload = await receiveUpload(call, {
    fileField: 'file',
    maxFileBytes: MAX_FILE_BYTES,
    tooLargeCode: 'VALIDATION_4013',
    tooLargeMessage: `The file is larger than ${MAX_FILE_BYTES / (1024 * 1024)} MB (${MAX_FILE_BYTES} bytes); split it.`,
    headBytes: 0,
    defaultFilename: 'file',
    encrypt: prepared.sealer,
  });
  let record: FileRecord;
  let attributes: Record<string, string | number | boolean> = {};
  let chunking: StaticChunking;
  let mimeType: string;
  try {
    for (const name of upload.fields.keys()) {
      if (!KNOWN_FIELDS.has(name)) throw new GatewayError('VALIDATION_4005', `Unknown parameter "${name}".`, { field: name });
    }
    const purpose = upload.fields.get('purpose')?.[0];
    if (purpose !== undefined && purpose !== 'assistants') throw new GatewayError('VALIDATION_4005', 'purpose must be "assistants" for files uploaded into a vector store.', { field: 'purpose' });
    const rawAttributes = jsonField(upload, 'attributes');
    if (rawAttributes !== undefined && rawAttributes !== null) attributes = parseRequest(attributesField, { attributes: rawAttributes }).attributes;
    chunking = fileChunking(jsonField(upload, 'chunking_strategy'), store.chunking_strategy);
    if (upload.file === undefined) throw new GatewayError('VALIDATION_4002', 'Missing required field "file" (the file, as a multipart file part).', { field: 'file' });
    mimeType = upload.file.mimeType;
    record = await call.app.files.adoptSealed(call.account.id, prepared.id, { filename: upload.file.filename, purpose: 'assistants', bytes: upload.file.size }, upload.file.path);
  } finally {
    await upload.cleanup();
  }
  const [file] = await service.addFiles(store, [
    {
      id: record.id,
      filename: record.filename,
      source: { kind: 'file', mime_type: mimeType === 'application/octet-stream' ? null : mimeType },
      attributes,
      chunking_strategy: chunking,
      key_id: call.principal.keyId,
    },
  ]);
  sendFile(call, file!);
}
