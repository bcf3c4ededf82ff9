import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { ConvertFormat } from '../documents/convert/convert-document.js';
import { convertWithLimits } from '../documents/convert/convert-with-limits.js';
import { documentObject } from '../documents/convert/document-object.js';
import { loadDocument } from '../documents/convert/document-source.js';
import { CONVERT_MAX_BYTES } from '../documents/convert/limits.js';
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
  const converted = await convertWithLimits(input, format);
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
  const reference = body.file_id !== undefined ? { file_id: body.file_id } : { url: body.url! };
  return { input: await loadDocument(call.app, call.account.id, reference, call.signal), format: body.format ?? 'markdown' };
}

function parseFormat(value: string | undefined): ConvertFormat {
  if (value === undefined || value === '') return 'markdown';
  if ((FORMATS as readonly string[]).includes(value)) return value as ConvertFormat;
  throw new GatewayError('VALIDATION_4005', `format must be "markdown" or "text", not "${value}".`, { field: 'format' });
}
