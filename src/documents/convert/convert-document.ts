import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { decodeText } from '../decode-text.js';
import { detectFormat } from '../detect.js';
import { DocumentError } from '../document-error.js';
import { extractDocument } from '../extract.js';
import type { DocumentFormat, DocumentInput } from '../types.js';

/** `markdown` keeps structure (headings, lists, tables, code); `text` is the indexing text. */
export type ConvertFormat = 'markdown' | 'text';

export interface ConvertedDocument {
  type: DocumentFormat;
  title?: string;
  /** One entry per page for paged formats (PDF), else one entry; '' for a page without text. */
  pages: string[];
}

/**
 * One document → its text as Markdown or plain text (POST /v1/documents/convert, `igw convert`).
 * The type is detected as for vector stores (detect.ts); every format they index converts.
 * Throws DocumentError (`unsupported_file`, `invalid_file`) with a message for the user.
 */
export async function convertDocument(input: DocumentInput, format: ConvertFormat): Promise<ConvertedDocument> {
  const type = detectFormat(input);
  const converted = type === 'pdf' ? await convertPdf(input) : format === 'markdown' ? await markdownOf(type, input) : await plainTextOf(input);
  if (converted.pages.every((page) => page.trim() === '')) throw new DocumentError('invalid_file', `"${input.filename}" contains no text.`);
  const title = converted.title?.trim();
  return title === undefined || title === '' ? { type, pages: converted.pages } : { type, title, pages: converted.pages };
}

interface Converted {
  title?: string | undefined;
  pages: string[];
}

async function convertPdf(input: DocumentInput): Promise<Converted> {
  // A PDF has no markup to keep: its page texts (in reading order) are the Markdown too.
  const { pages, title } = await (await import('../pdf.js')).extractPdfPages(input);
  return { title, pages };
}

async function plainTextOf(input: DocumentInput): Promise<Converted> {
  const document = await extractDocument(input);
  return { title: document.title, pages: [document.text] };
}

async function markdownOf(type: DocumentFormat, input: DocumentInput): Promise<Converted> {
  switch (type) {
    case 'html':
      return (await import('./html-markdown.js')).htmlPageToMarkdown(input);
    case 'docx':
      return (await import('./docx-markdown.js')).docxToMarkdown(input);
    case 'csv':
      return { pages: [csvTable(input)] };
    case 'json':
      return { pages: [await fenced(prettyJson(decodeText(input)), 'json')] };
    case 'code':
      return { pages: [await fenced(decodeText(input), languageOf(input.filename))] };
    case 'markdown':
    case 'text':
    case 'pdf':
      return plainTextOf(input);
  }
}

/** A GFM table: header row, then one row per record; pipes inside cells escaped. */
function csvTable(input: DocumentInput): string {
  const source = decodeText(input);
  const delimiter = input.filename.toLowerCase().endsWith('.tsv') || (source.split('\n', 1)[0] ?? '').includes('\t') ? '\t' : ',';
  let records: string[][];
  try {
    records = parse(source, { delimiter, relax_column_count: true, relax_quotes: true, skip_empty_lines: true, trim: true }) as string[][];
  } catch (error) {
    throw new DocumentError('invalid_file', `"${input.filename}" is not a readable CSV file (${(error as Error).message}).`, { cause: error });
  }
  const [header, ...rows] = records;
  if (header === undefined) return '';
  const width = Math.max(header.length, ...rows.map((row) => row.length));
  const cell = (value: string | undefined) => (value ?? '').replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
  const line = (row: string[]) => `| ${Array.from({ length: width }, (_, index) => cell(row[index])).join(' | ')} |`;
  return [line(header), `| ${Array.from({ length: width }, () => '---').join(' | ')} |`, ...rows.map(line)].join('\n');
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // JSON Lines and slightly broken JSON stay as they are: still worth reading.
    return text.trim();
  }
}

/** A fence longer than any backtick run inside, so the content cannot close it early. */
async function fenced(text: string, language: string): Promise<string> {
  // turndown (and its DOM) load on first use, not with every gateway (issue 18 item 3: resident size).
  const { tidyMarkdown } = await import('./markdown-from-html.js');
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longest + 1);
  return tidyMarkdown(`${fence}${language}\n${text.replace(/\n+$/, '')}\n${fence}`);
}

function languageOf(filename: string): string {
  const extension = path.extname(filename).slice(1).toLowerCase();
  return LANGUAGES[extension] ?? extension;
}

const LANGUAGES: Record<string, string> = { ts: 'typescript', tsx: 'tsx', js: 'javascript', mjs: 'javascript', cjs: 'javascript', py: 'python', rb: 'ruby', rs: 'rust', sh: 'bash', yml: 'yaml', md: 'markdown', kt: 'kotlin', cs: 'csharp', hpp: 'cpp', cc: 'cpp', cxx: 'cpp', h: 'c' };
