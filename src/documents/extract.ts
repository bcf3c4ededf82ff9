import { extractCsv } from './csv.js';
import { detectFormat } from './detect.js';
import { DocumentError } from './document-error.js';
import { extractJson } from './json.js';
import { extractMarkdown } from './markdown.js';
import { extractPlainText } from './plain-text.js';
import type { DocumentInput, ExtractedDocument } from './types.js';

export { DocumentError, isDocumentError, type DocumentErrorCode } from './document-error.js';
export type { DocumentFormat, DocumentInput, ExtractedDocument } from './types.js';

/**
 * A file's text for indexing: the type is detected (detect.ts), then the parser for that type
 * gives plain text in reading order. Throws DocumentError (`unsupported_file` for types igw
 * does not read, `invalid_file` for damaged files and files without any text); its message is
 * written for the file's `last_error`.
 */
export async function extractDocument(input: DocumentInput): Promise<ExtractedDocument> {
  const format = detectFormat(input);
  const document = await extractAs(format, input);
  const text = document.text.trim();
  if (text === '') throw new DocumentError('invalid_file', `"${input.filename}" contains no text to index.`);
  const title = document.title?.trim();
  return title === undefined || title === '' ? { text, format: document.format } : { text, format: document.format, title };
}

async function extractAs(format: ReturnType<typeof detectFormat>, input: DocumentInput): Promise<ExtractedDocument> {
  switch (format) {
    case 'text':
    case 'code':
      return extractPlainText(input, format);
    case 'markdown':
      return extractMarkdown(input);
    case 'json':
      return extractJson(input);
    case 'csv':
      return extractCsv(input);
    case 'html':
      // Parsers with heavy dependencies load on first use (most processes never parse HTML).
      return (await import('./html.js')).extractHtml(input);
    case 'pdf':
      return (await import('./pdf.js')).extractPdf(input);
    case 'docx':
      return (await import('./docx.js')).extractDocx(input);
  }
}
