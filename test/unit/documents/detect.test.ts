import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../../src/documents/detect.js';
import { DocumentError } from '../../../src/documents/document-error.js';
import type { DocumentFormat } from '../../../src/documents/types.js';

const text = (value: string): Buffer => Buffer.from(value, 'utf8');
const PDF = Buffer.concat([text('%PDF-1.7\n'), Buffer.alloc(64, 0x20)]);
const DOCX = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), text('....[Content_Types].xml....word/document.xml....')]);
const XLSX = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), text('....xl/workbook.xml....')]);
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);

describe('detectFormat', () => {
  it.each<[string, Buffer, string, string | undefined, DocumentFormat]>([
    ['PDF by magic, whatever the name', PDF, 'upload.bin', 'application/octet-stream', 'pdf'],
    ['PDF by magic, named .txt', PDF, 'notes.txt', 'text/plain', 'pdf'],
    ['DOCX by its zip content', DOCX, 'file', undefined, 'docx'],
    ['HTML by media type', text('<p>hi</p>'), 'page', 'text/html; charset=utf-8', 'html'],
    ['HTML by extension', text('<p>hi</p>'), 'page.htm', undefined, 'html'],
    ['HTML by its doctype', text('  <!DOCTYPE html><html><body>x'), 'page', undefined, 'html'],
    ['Markdown by extension under text/plain', text('# Title'), 'README.md', 'text/plain', 'markdown'],
    ['Markdown by media type', text('# Title'), 'readme', 'text/markdown', 'markdown'],
    ['CSV by extension', text('a,b\n1,2'), 'data.csv', undefined, 'csv'],
    ['TSV is CSV', text('a\tb\n1\t2'), 'data.tsv', undefined, 'csv'],
    ['JSON by media type', text('{"a":1}'), 'x', 'application/json', 'json'],
    ['JSON by +json media type', text('{"a":1}'), 'x', 'application/ld+json', 'json'],
    ['JSON Lines by extension', text('{"a":1}\n{"a":2}'), 'rows.jsonl', undefined, 'json'],
    ['JSON by content', text('[1, 2, 3]'), 'numbers', undefined, 'json'],
    ['not JSON although it starts with {', text('{ not json'), 'notes', undefined, 'text'],
    ['code by extension', text('def f(): pass'), 'main.py', 'text/plain', 'code'],
    ['code by text/x- media type', text('fn main() {}'), 'main', 'text/x-rust', 'code'],
    ['TypeScript by extension (not MPEG-TS video)', text('export const a = 1;'), 'a.ts', undefined, 'code'],
    ['plain text by extension', text('hello'), 'notes.txt', undefined, 'text'],
    ['plain text without any hint', text('hello'), 'notes', undefined, 'text'],
    ['other text/* types are text', text('BEGIN:VCALENDAR'), 'invite', 'text/calendar', 'text'],
  ])('%s', (_name, bytes, filename, mimeType, expected) => {
    expect(detectFormat({ bytes, filename, ...(mimeType === undefined ? {} : { mimeType }) })).toBe(expected);
  });

  it.each<[string, Buffer, string, string | undefined, 'unsupported_file' | 'invalid_file', RegExp]>([
    ['a PNG image', PNG, 'photo.png', 'image/png', 'unsupported_file', /PNG image/],
    ['a PNG with a text name', PNG, 'photo.txt', undefined, 'unsupported_file', /PNG image/],
    ['a spreadsheet', XLSX, 'sheet.xlsx', undefined, 'unsupported_file', /export the sheet as CSV/],
    ['a legacy Word file', Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), 'old.doc', undefined, 'unsupported_file', /save it as \.docx/],
    ['an audio type', text('ID4 not really'), 'song', 'audio/mpeg', 'unsupported_file', /audio\/mpeg/],
    ['a .pdf that is not a PDF', text('<html>error page</html>'), 'paper.pdf', undefined, 'invalid_file', /not one/],
    ['a declared PDF that is not one', text('hello'), 'paper', 'application/pdf', 'invalid_file', /not one/],
    ['a .docx that is not a zip', text('hello'), 'letter.docx', undefined, 'invalid_file', /\.docx/],
  ])('refuses %s', (_name, bytes, filename, mimeType, code, message) => {
    let caught: unknown;
    try {
      detectFormat({ bytes, filename, ...(mimeType === undefined ? {} : { mimeType }) });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DocumentError);
    expect((caught as DocumentError).code).toBe(code);
    expect((caught as DocumentError).message).toMatch(message);
    expect((caught as DocumentError).message).toContain(filename);
  });
});
