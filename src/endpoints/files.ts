import { ANY_INFERENCE_SCOPE, requireScope } from '../auth/scopes.js';
import { GatewayError } from '../errors/gateway-error.js';
import { fileObject, isUploadPurpose, UPLOAD_PURPOSES, type FileRecord } from '../files/file-record.js';
import { attachmentDisposition, writeHeadSafely } from '../http/header-value.js';
import { responseHeaders, type RequestCall } from '../http/request-call.js';
import { sendJson } from '../http/respond.js';
import { receiveUpload } from './shared/multipart-upload.js';

/**
 * Scopes (the spec leaves files open): any inference scope uploads and reads files (batch inputs
 * feed inference endpoints); kit.knowledge.write may also upload and delete, and
 * kit.knowledge.read read, so a knowledge-base key can manage the files it attaches to vector
 * stores. A knowledge-only key may upload purpose `assistants` only.
 */
export const FILES_READ_SCOPES: readonly string[] = [...ANY_INFERENCE_SCOPE, 'kit.knowledge.read', 'kit.knowledge.write'];
export const FILES_WRITE_SCOPES: readonly string[] = [...ANY_INFERENCE_SCOPE, 'kit.knowledge.write'];

const KNOWN_FIELDS = new Set(['purpose']);
/** Requests up to this size keep the sealed file in memory and store it in one write (no temp file). */
const HOLD_UPLOAD_BYTES = 256 * 1024;

/** POST /v1/files: multipart `file` + `purpose`; the bytes are sealed on their way to disk. */
export async function handleCreateFile(call: RequestCall): Promise<void> {
  const files = call.app.files;
  const prepared = files.prepare();
  const maxBytes = call.app.config.files.max_upload_bytes;
  const upload = await receiveUpload(call, {
    fileField: 'file',
    maxFileBytes: maxBytes,
    tooLargeCode: 'VALIDATION_4013',
    tooLargeMessage: `The file is larger than ${maxBytes} bytes (config files.max_upload_bytes); split it.`,
    headBytes: 0,
    defaultFilename: 'file',
    encrypt: prepared.sealer,
    holdUpToBytes: HOLD_UPLOAD_BYTES,
  });
  let record: FileRecord;
  try {
    for (const name of upload.fields.keys()) {
      if (!KNOWN_FIELDS.has(name)) throw new GatewayError('VALIDATION_4005', `Unknown parameter "${name}".`, { field: name });
    }
    const purposes = upload.fields.get('purpose') ?? [];
    if (purposes.length === 0) throw new GatewayError('VALIDATION_4002', `Missing required field "purpose" (one of ${UPLOAD_PURPOSES.join(', ')}).`, { field: 'purpose' });
    const purpose = purposes[0]!;
    if (purposes.length > 1 || !isUploadPurpose(purpose)) {
      throw new GatewayError('VALIDATION_4005', `purpose must be one of ${UPLOAD_PURPOSES.join(', ')}.`, { field: 'purpose' });
    }
    if (purpose !== 'assistants') requireScope(call.principal.scopes, ANY_INFERENCE_SCOPE);
    if (upload.file === undefined) throw new GatewayError('VALIDATION_4002', 'Missing required field "file" (the file, as a multipart file part).', { field: 'file' });
    const described = { filename: upload.file.filename, purpose, bytes: upload.file.size };
    const sealedPath = upload.file.path;
    record =
      upload.file.held !== undefined
        ? await files.storeSealed(call.account.id, prepared.id, described, upload.file.held)
        : await files.adoptSealed(call.account.id, prepared.id, described, sealedPath, () => upload.moved(sealedPath));
  } finally {
    await upload.cleanup();
  }
  sendJson(call.response, 200, fileObject(record), responseHeaders(call));
}

function limitParam(call: RequestCall): number {
  const text = call.query.get('limit');
  if (text === null) return 10_000;
  const limit = Number(text);
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new GatewayError('VALIDATION_4005', 'limit must be an integer between 1 and 10000.', { field: 'limit' });
  return limit;
}

/** GET /v1/files: the account's files, newest first; `purpose`, `order`, `after`, `limit`. */
export async function handleListFiles(call: RequestCall): Promise<void> {
  const order = call.query.get('order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw new GatewayError('VALIDATION_4005', 'order must be "asc" or "desc".', { field: 'order' });
  const page = await call.app.files.list(call.account.id, {
    order,
    limit: limitParam(call),
    ...(call.query.get('purpose') ? { purpose: call.query.get('purpose')! } : {}),
    ...(call.query.get('after') ? { after: call.query.get('after')! } : {}),
  });
  const data = page.data.map(fileObject);
  sendJson(call.response, 200, { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: page.has_more }, responseHeaders(call));
}

async function ownFile(call: RequestCall): Promise<FileRecord> {
  const id = call.params['id']!;
  const record = await call.app.files.get(call.account.id, id);
  if (record === undefined) throw new GatewayError('RESOURCE_5410', `No file with id "${id}" (files are visible to their own account only).`, { file_id: id });
  return record;
}

/** GET /v1/files/{id} */
export async function handleRetrieveFile(call: RequestCall): Promise<void> {
  sendJson(call.response, 200, fileObject(await ownFile(call)), responseHeaders(call));
}

/** GET /v1/files/{id}/content: the plaintext, decrypted as it streams out. */
export async function handleFileContent(call: RequestCall): Promise<void> {
  const record = await ownFile(call);
  const content = call.app.files.openRead(record);
  const { response } = call;
  await new Promise<void>((resolve) => {
    content.once('error', (error) => {
      // Headers may be out already: cut the connection so the client sees an incomplete body.
      call.app.logger.error('stored file failed to decrypt', { file_id: record.id, error: String(error) });
      response.destroy(error);
      resolve();
    });
    response.once('close', () => {
      content.destroy();
      resolve();
    });
    writeHeadSafely(response, 200, responseHeaders(call, {
      'content-type': 'application/octet-stream',
      'content-length': String(record.bytes),
      'content-disposition': attachmentDisposition(record.filename),
    }));
    content.pipe(response);
  });
}

/** DELETE /v1/files/{id} */
export async function handleDeleteFile(call: RequestCall): Promise<void> {
  const id = call.params['id']!;
  const deleted = await call.app.files.delete(call.account.id, id);
  if (!deleted) throw new GatewayError('RESOURCE_5410', `No file with id "${id}" (files are visible to their own account only).`, { file_id: id });
  sendJson(call.response, 200, { id, object: 'file', deleted: true }, responseHeaders(call));
}
