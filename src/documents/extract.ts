import { extractCsv } from './csv.js';
import { detectFormat } from './detect.js';
import { DocumentError, isDocumentError } from './document-error.js';
import { extractJson } from './json.js';
import { extractMarkdown } from './markdown.js';
import { extractPlainText } from './plain-text.js';
import type { DocumentInput, ExtractedDocument } from './types.js';

export { DocumentError, isDocumentError, type DocumentErrorCode } from './document-error.js';
export type { DocumentFormat, DocumentInput, ExtractedDocument } from './types.js';

/**
 * A file's text for indexing: the type is detected (detect.ts), then the parser for that type
 * gives plain text in reading order. Throws DocumentError (`unsupported_file` for types igw
 * does not read, `invalid_file` for damaged files, files without any text and anything a parser
 * throws); its message is written for the file's `last_error`.
 */
export async function extractDocument(input: DocumentInput): Promise<ExtractedDocument> {
  const format = detectFormat(input);
  let document: ExtractedDocument;
  try {
    document = await extractAs(format, input);
  } catch (error) {
    if (isDocumentError(error)) throw error;
    // A parser that throws on a file it was given is a failure of that file, never an exception
    // that escapes: the file reports it, the others go on.
    const reason = error instanceof Error ? error.message : String(error);
    throw new DocumentError('invalid_file', `"${input.filename}" could not be read as ${format} (${reason}). Check that the file opens, or convert it to text.`, { cause: error });
  }
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
