import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { convertDocument, type ConvertedDocument, type ConvertFormat } from '../documents/convert/convert-document.js';
import { documentObject } from '../documents/convert/document-object.js';
import { CONVERT_MAX_BYTES, CONVERT_TIMEOUT_MS } from '../documents/convert/limits.js';
import { isDocumentError } from '../documents/document-error.js';
import { fetchUrlDocument } from '../documents/fetch-url.js';
import type { DocumentInput } from '../documents/types.js';
import { GatewayError } from '../errors/gateway-error.js';
import { readJsonBody } from '../http/body.js';
import { responseHeaders, type RequestCall } from '../http/request-call.js';
import { sendJson } from '../http/respond.js';
import { receiveUpload } from './shared/multipart-upload.js';
import { parseRequest } from './validation/parse.js';

const JSON_BODY_LIMIT = 64 * 1024;
const FORMATS = ['markdown', 'text'] as const;

const jsonBodySchema = z
  .object({
    file_id: z.string().min(1).optional(),
    url: z.string().min(1).optional(),
    format: z.enum(FORMATS).optional(),
  })
  .strict()
  .refine((body) => (body.file_id === undefined) !== (body.url === undefined), { message: 'send exactly one of file_id and url (or upload the file as multipart/form-data)' });

/**
 * POST /v1/documents/convert (scope kit.documents; DESIGN §7): a document — multipart `file`,
 * or JSON `{file_id}` / `{url}` (fetched through the SSRF guard) — in; its text as Markdown
 * (default) or plain text out, page by page for paged formats, with metadata. A file igw cannot
 * read is a 400 naming the reason; nothing is stored.
 */
export async function handleDocumentsConvert(call: RequestCall): Promise<void> {
  const { input, format } = /^multipart\/form-data/i.test(call.request.headers['content-type'] ?? '') ? await fromUpload(call) : await fromJson(call);
  const converted = await withTimeout(convertDocument(input, format), input.filename);
  sendJson(call.response, 200, documentObject(input.filename, format, converted), responseHeaders(call));
}

async function fromUpload(call: RequestCall): Promise<{ input: DocumentInput; format: ConvertFormat }> {
  const upload = await receiveUpload(call, {
    fileField: 'file',
    maxFileBytes: CONVERT_MAX_BYTES,
    tooLargeCode: 'VALIDATION_4013',
    tooLargeMessage: `The document is larger than ${CONVERT_MAX_BYTES / (1024 * 1024)} MB; split it and convert the parts.`,
    headBytes: 0,
    defaultFilename: 'document',
  });
  try {
    for (const name of upload.fields.keys()) {
      if (name !== 'format') throw new GatewayError('VALIDATION_4005', `Unknown parameter "${name}"; send "file" and optionally "format".`, { field: name });
    }
    const format = parseFormat(upload.fields.get('format')?.[0]);
    if (upload.file === undefined) throw new GatewayError('VALIDATION_4002', 'Missing required field "file" (the document, as a multipart file part).', { field: 'file' });
    const bytes = await readFile(upload.file.path);
    return { input: { bytes, filename: upload.file.filename, mimeType: upload.file.mimeType }, format };
  } finally {
    await upload.cleanup();
  }
}

async function fromJson(call: RequestCall): Promise<{ input: DocumentInput; format: ConvertFormat }> {
  const body = parseRequest(jsonBodySchema, await readJsonBody(call.request, JSON_BODY_LIMIT));
  const format = body.format ?? 'markdown';
  if (body.file_id !== undefined) {
    const record = await call.app.files.get(call.account.id, body.file_id);
    if (record === undefined) throw new GatewayError('RESOURCE_5410', `No file "${body.file_id}" in this account; upload it with POST /v1/files first.`, { field: 'file_id' });
    if (record.bytes > CONVERT_MAX_BYTES) throw new GatewayError('VALIDATION_4013', `The file is larger than ${CONVERT_MAX_BYTES / (1024 * 1024)} MB; split it and convert the parts.`, { field: 'file_id', limit_bytes: CONVERT_MAX_BYTES });
    return { input: { bytes: await call.app.files.readAll(record), filename: record.filename }, format };
  }
  const url = body.url!;
  if (!/^https?:\/\//i.test(url)) throw new GatewayError('VALIDATION_4005', 'url must be an absolute http(s) URL.', { field: 'url' });
  const fetched = await fetchUrlDocument(url, { maxBytes: CONVERT_MAX_BYTES, timeoutMs: CONVERT_TIMEOUT_MS, allowPrivate: call.app.config.server.allow_private_urls, signal: call.signal });
  return { input: { bytes: fetched.bytes, filename: fetched.filename, ...(fetched.mimeType === undefined ? {} : { mimeType: fetched.mimeType }) }, format };
}

function parseFormat(value: string | undefined): ConvertFormat {
  if (value === undefined || value === '') return 'markdown';
  if ((FORMATS as readonly string[]).includes(value)) return value as ConvertFormat;
  throw new GatewayError('VALIDATION_4005', `format must be "markdown" or "text", not "${value}".`, { field: 'format' });
}

/** Parser failures are the document's own (400 naming why), never a 500; slow ones are cut off. */
async function withTimeout(conversion: Promise<ConvertedDocument>, filename: string): Promise<ConvertedDocument> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new GatewayError('VALIDATION_4005', `"${filename}" took longer than ${CONVERT_TIMEOUT_MS / 1000} s to convert; split it into smaller documents.`, { field: 'file' })), CONVERT_TIMEOUT_MS);
  });
  try {
    return await Promise.race([conversion, deadline]);
  } catch (error) {
    if (isDocumentError(error)) throw new GatewayError('VALIDATION_4005', error.message, { field: 'file', reason: error.code });
    if (error instanceof GatewayError) throw error;
    // A parser that throws on odd input is still the document's failure to read, not a fault of
    // the gateway: the client gets a 400 that says so (the cause stays in the log).
    throw new GatewayError('VALIDATION_4005', `"${filename}" could not be converted (${(error as Error).message}); it may be damaged.`, { field: 'file', reason: 'invalid_file' }, { cause: error });
  } finally {
    clearTimeout(timer);
    // A conversion that lost the race still settles later; its failure is not an unhandled rejection.
    conversion.catch(() => undefined);
  }
}
