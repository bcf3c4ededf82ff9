import path from 'node:path';
import { DocumentError } from './document-error.js';
import type { DocumentFormat, DocumentInput } from './types.js';

/**
 * Which parser a file goes to. Evidence in order of trust:
 * 1. the bytes themselves for binary containers (PDF `%PDF-`, ZIP `PK\3\4` holding
 *    `word/document.xml` = DOCX; other known binaries are refused by name);
 * 2. a specific declared media type (not the generic `text/plain` / `application/octet-stream`
 *    that upload tools send for anything);
 * 3. the file name's extension;
 * 4. a look at the text (an HTML document start, a JSON value), else plain text.
 * A declared or named PDF/DOCX whose bytes are not one is an `invalid_file`.
 */
export function detectFormat(input: DocumentInput): DocumentFormat {
  const { bytes, filename } = input;
  const mime = baseMime(input.mimeType);
  const extension = path.extname(filename).toLowerCase();

  if (isPdf(bytes)) return 'pdf';
  if (isZip(bytes)) {
    if (bytes.includes('word/document.xml')) return 'docx';
    throw unsupported(filename, describeZip(bytes, extension));
  }
  const binary = knownBinary(bytes);
  if (binary !== undefined) throw unsupported(filename, binary);

  const declared = mime === undefined ? undefined : MIME_FORMATS.get(mime) ?? formatOfTextMime(mime);
  const named = EXTENSION_FORMATS.get(extension);
  const claimed = declared ?? named;
  if (claimed === 'pdf') throw new DocumentError('invalid_file', `"${filename}" is declared as a PDF but is not one (no %PDF- header); it may be damaged or only partly uploaded.`);
  if (claimed === 'docx') throw new DocumentError('invalid_file', `"${filename}" is declared as a Word document (.docx) but is not one (not a DOCX zip package); it may be damaged, or an old .doc file: save it as .docx.`);
  if (claimed !== undefined) return claimed;
  if (mime !== undefined && UNSUPPORTED_MIME.test(mime)) throw unsupported(filename, `its type is ${mime}`);
  if (UNSUPPORTED_EXTENSIONS.has(extension)) throw unsupported(filename, `${extension} files are not supported`);
  return sniffText(bytes);
}

/** `text/html; charset=utf-8` → `text/html`; generic types → undefined (they say nothing). */
function baseMime(mimeType: string | undefined): string | undefined {
  const base = mimeType?.split(';')[0]?.trim().toLowerCase();
  if (base === undefined || base === '' || base === 'application/octet-stream' || base === 'text/plain' || base === 'binary/octet-stream') return undefined;
  return base;
}

const MIME_FORMATS = new Map<string, DocumentFormat>([
  ['text/html', 'html'],
  ['application/xhtml+xml', 'html'],
  ['text/markdown', 'markdown'],
  ['text/x-markdown', 'markdown'],
  ['text/csv', 'csv'],
  ['application/csv', 'csv'],
  ['text/tab-separated-values', 'csv'],
  ['application/json', 'json'],
  ['application/x-ndjson', 'json'],
  ['application/jsonl', 'json'],
  ['application/pdf', 'pdf'],
  ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'docx'],
  ['application/javascript', 'code'],
  ['application/typescript', 'code'],
  ['application/x-sh', 'code'],
  ['application/x-python', 'code'],
  ['application/sql', 'code'],
  ['application/xml', 'code'],
  ['application/yaml', 'code'],
  ['application/toml', 'code'],
]);

/** `application/ld+json` and friends are JSON; `text/x-python`, `text/javascript`… are code. */
function formatOfTextMime(mime: string): DocumentFormat | undefined {
  if (mime.endsWith('+json')) return 'json';
  if (mime.endsWith('+xml')) return 'code';
  if (mime.startsWith('text/x-') || mime === 'text/javascript' || mime === 'text/css' || mime === 'text/xml') return 'code';
  if (mime.startsWith('text/')) return 'text';
  return undefined;
}

const CODE_EXTENSIONS = [
  '.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '.py', '.pyi', '.rb', '.go', '.rs', '.java', '.kt', '.kts', '.scala',
  '.c', '.h', '.cc', '.cpp', '.cxx', '.hpp', '.hh', '.cs', '.fs', '.php', '.swift', '.m', '.mm', '.sh', '.bash', '.zsh', '.fish', '.ps1',
  '.sql', '.r', '.pl', '.pm', '.lua', '.hs', '.ex', '.exs', '.erl', '.clj', '.dart', '.jl', '.zig', '.nim', '.vue', '.svelte', '.astro',
  '.css', '.scss', '.sass', '.less', '.xml', '.yaml', '.yml', '.toml', '.ini', '.cfg', '.conf', '.properties', '.gradle', '.tf', '.proto',
  '.graphql', '.gql', '.dockerfile', '.makefile', '.cmake', '.bat', '.vb', '.groovy', '.ml', '.elm', '.sol', '.tex',
];

const EXTENSION_FORMATS = new Map<string, DocumentFormat>([
  ['.txt', 'text'],
  ['.text', 'text'],
  ['.log', 'text'],
  ['.rst', 'text'],
  ['.adoc', 'text'],
  ['.org', 'text'],
  ['.md', 'markdown'],
  ['.markdown', 'markdown'],
  ['.mdx', 'markdown'],
  ['.html', 'html'],
  ['.htm', 'html'],
  ['.xhtml', 'html'],
  ['.csv', 'csv'],
  ['.tsv', 'csv'],
  ['.json', 'json'],
  ['.jsonl', 'json'],
  ['.ndjson', 'json'],
  ['.pdf', 'pdf'],
  ['.docx', 'docx'],
  ...CODE_EXTENSIONS.map((extension) => [extension, 'code'] as [string, DocumentFormat]),
]);

/** Types we know and do not parse: a clear refusal beats indexing binary noise. */
const UNSUPPORTED_MIME = /^(image|audio|video|font)\/|^application\/(zip|gzip|x-tar|x-7z|vnd\.ms-|msword|vnd\.oasis|vnd\.openxmlformats-officedocument\.(spreadsheet|presentation))/;
const UNSUPPORTED_EXTENSIONS = new Set(['.doc', '.xls', '.xlsx', '.ppt', '.pptx', '.odt', '.ods', '.odp', '.rtf', '.epub', '.zip', '.gz', '.tar', '.7z', '.png', '.jpg', '.jpeg', '.gif', '.webp', '.mp3', '.wav', '.mp4', '.exe', '.bin']);

function unsupported(filename: string, why: string): DocumentError {
  return new DocumentError('unsupported_file', `"${filename}" cannot be indexed: ${why}. Supported types are text, Markdown, HTML, PDF, DOCX, CSV, JSON and source code.`);
}

/** `%PDF-` at the start; readers accept it within the first 1024 bytes (junk before the header). */
function isPdf(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024));
  return head.includes('%PDF-');
}

function isZip(bytes: Uint8Array): boolean {
  return bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
}

function describeZip(bytes: Buffer, extension: string): string {
  if (bytes.includes('xl/workbook.xml')) return 'spreadsheets (.xlsx) are not supported; export the sheet as CSV';
  if (bytes.includes('ppt/presentation.xml')) return 'presentations (.pptx) are not supported; export them as PDF';
  if (bytes.includes('application/vnd.oasis.opendocument')) return 'OpenDocument files are not supported; save as .docx or PDF';
  return `it is a ZIP archive${extension === '' ? '' : ` (${extension})`}, not a document`;
}

const BINARY_SIGNATURES: Array<[number[], string]> = [
  [[0x89, 0x50, 0x4e, 0x47], 'it is a PNG image'],
  [[0xff, 0xd8, 0xff], 'it is a JPEG image'],
  [[0x47, 0x49, 0x46, 0x38], 'it is a GIF image'],
  [[0x1f, 0x8b], 'it is gzip-compressed; decompress it first'],
  [[0xd0, 0xcf, 0x11, 0xe0], 'it is a legacy Office file (.doc/.xls/.ppt); save it as .docx or PDF'],
  [[0x7b, 0x5c, 0x72, 0x74, 0x66], 'RTF is not supported; save it as .docx or PDF'],
  [[0x7f, 0x45, 0x4c, 0x46], 'it is an executable'],
  [[0x49, 0x44, 0x33], 'it is an audio file'],
];

function knownBinary(bytes: Uint8Array): string | undefined {
  for (const [signature, what] of BINARY_SIGNATURES) {
    if (signature.every((byte, index) => bytes[index] === byte)) return what;
  }
  return undefined;
}

/** No declared type and no known extension: HTML and JSON are recognisable from their start. */
function sniffText(bytes: Buffer): DocumentFormat {
  const head = bytes.subarray(0, 1024).toString('utf8').replace(/^\uFEFF/, '').trimStart().toLowerCase();
  if (head.startsWith('<!doctype html') || head.startsWith('<html') || (head.startsWith('<?xml') && head.includes('<html'))) return 'html';
  if (head.startsWith('{') || head.startsWith('[')) {
    try {
      JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, ''));
      return 'json';
    } catch {
      return 'text';
    }
  }
  return 'text';
}
