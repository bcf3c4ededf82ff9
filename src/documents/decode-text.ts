import { DocumentError } from './document-error.js';
import type { DocumentInput } from './types.js';

/**
 * Bytes of a text file → string. A byte-order mark decides the encoding (UTF-8, UTF-16 LE/BE);
 * else a declared charset (the media type's `charset=`, or one the caller found, like HTML's
 * `<meta charset>`) when the runtime knows it; else UTF-8 when the bytes are valid UTF-8, else
 * Windows-1252 (what legacy "ANSI" text files almost always are, and a superset of Latin-1).
 * Bytes that look binary (NUL bytes or many control characters) are refused: indexing them
 * would only store noise.
 */
export function decodeText(input: DocumentInput, declaredCharset?: string): string {
  const { bytes, filename } = input;
  let text: string;
  const charset = (declaredCharset ?? charsetOf(input.mimeType))?.toLowerCase();
  if (startsWith(bytes, [0xef, 0xbb, 0xbf])) text = new TextDecoder('utf-8').decode(bytes.subarray(3));
  else if (startsWith(bytes, [0xff, 0xfe])) text = new TextDecoder('utf-16le').decode(bytes.subarray(2));
  else if (startsWith(bytes, [0xfe, 0xff])) text = new TextDecoder('utf-16be').decode(bytes.subarray(2));
  else if (charset !== undefined && /^utf-?16/.test(charset) && knownEncoding(charset)) text = new TextDecoder(charset).decode(bytes);
  else {
    if (looksBinary(bytes)) {
      throw new DocumentError('unsupported_file', `"${filename}" looks like a binary file, not text; supported types are text, Markdown, HTML, PDF, DOCX, CSV, JSON and source code.`);
    }
    if (charset !== undefined && LATIN.has(charset)) text = decodeWindows1252(bytes);
    else if (charset !== undefined && !UTF8.has(charset) && knownEncoding(charset)) text = new TextDecoder(charset).decode(bytes);
    else {
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      } catch {
        text = decodeWindows1252(bytes);
      }
    }
  }
  return normalizeNewlines(text);
}

/** Labels that mean UTF-8 (or its ASCII subset): the default path, which also checks validity. */
const UTF8 = new Set(['utf-8', 'utf8', 'unicode-1-1-utf-8', 'us-ascii', 'ascii']);
/** Labels browsers decode as Windows-1252 (WHATWG Encoding: latin1 and iso-8859-1 included). */
const LATIN = new Set(['windows-1252', 'cp1252', 'latin1', 'iso-8859-1', 'iso8859-1', 'l1', 'x-cp1252']);

/** `text/html; charset="Shift_JIS"` → `Shift_JIS`. */
export function charsetOf(mimeType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([\w:.-]+)"?/i.exec(mimeType ?? '');
  return match?.[1];
}

function knownEncoding(label: string): boolean {
  try {
    new TextDecoder(label);
    return true;
  } catch {
    return false;
  }
}

/** CRLF and lone CR → LF: every parser and the chunker see one kind of line break. */
export function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

/**
 * Windows-1252: Latin-1 except 0x80–0x9F, which hold typographic quotes, dashes, € and so on.
 * (Node's TextDecoder decodes the "windows-1252" label as plain Latin-1, leaving C1 controls.)
 */
function decodeWindows1252(bytes: Uint8Array): string {
  const latin1 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
  return latin1.replace(/[\u0080-\u009f]/g, (char) => String.fromCharCode(WINDOWS_1252_C1[char.charCodeAt(0) - 0x80]!));
}

/** Code points of bytes 0x80–0x9F in Windows-1252 (the five undefined ones map to themselves). */
const WINDOWS_1252_C1 = [
  0x20ac, 0x0081, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008d, 0x017d, 0x008f, 0x0090, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0x009d, 0x017e, 0x0178,
];

/** How much of the file is inspected for binary content. */
const SNIFF_BYTES = 8192;

/** NUL bytes, or more than 10% control characters other than tab, LF, CR, FF, ESC. */
function looksBinary(bytes: Uint8Array): boolean {
  const length = Math.min(bytes.length, SNIFF_BYTES);
  let control = 0;
  for (let index = 0; index < length; index += 1) {
    const byte = bytes[index]!;
    if (byte === 0) return true;
    if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x0c && byte !== 0x1b) control += 1;
  }
  return length > 0 && control / length > 0.1;
}

function startsWith(bytes: Uint8Array, signature: readonly number[]): boolean {
  return signature.every((byte, index) => bytes[index] === byte);
}
