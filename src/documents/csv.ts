import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { decodeText } from './decode-text.js';
import { DocumentError } from './document-error.js';
import type { DocumentInput, ExtractedDocument } from './types.js';

/**
 * CSV / TSV → one line per data row, each value labelled with its column:
 * `month: January; revenue: 12500; expenses: 8200; profit: 4300`. A chunk holding any run of
 * rows is then meaningful alone (a bare `January,12500,8200,4300` is not), and rows are lines,
 * so the chunker cuts between rows. The first record is the header (CSV's convention); blank
 * header cells become `column N`; empty values are left out. Parsing is csv-parse's (quoted
 * fields, embedded newlines and quotes, ragged rows).
 */
export function extractCsv(input: DocumentInput): ExtractedDocument {
  const source = decodeText(input);
  const delimiter = chooseDelimiter(source, input);
  let records: string[][];
  try {
    records = parse(source, {
      delimiter,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      trim: true,
    }) as string[][];
  } catch (error) {
    throw new DocumentError('invalid_file', `"${input.filename}" is not a readable CSV file (${(error as Error).message}).`, { cause: error });
  }
  const [header, ...rows] = records;
  if (header === undefined) return { text: '', format: 'csv' };
  const columns = header.map((name, index) => (name === '' ? `column ${index + 1}` : name));
  if (rows.length === 0) return { text: columns.join('; '), format: 'csv' };
  const lines = rows.map((row) =>
    row
      .map((value, index) => (value === '' ? undefined : `${columns[index] ?? `column ${index + 1}`}: ${value.replace(/\s*\n\s*/g, ' ')}`))
      .filter((cell) => cell !== undefined)
      .join('; '),
  );
  return { text: lines.filter((line) => line !== '').join('\n'), format: 'csv' };
}

const CANDIDATES = [',', ';', '\t', '|'];

/**
 * Tab for .tsv and text/tab-separated-values; otherwise the candidate that splits the first
 * lines most consistently (European exports use `;`), comma when in doubt.
 */
function chooseDelimiter(source: string, input: DocumentInput): string {
  if (path.extname(input.filename).toLowerCase() === '.tsv' || input.mimeType?.toLowerCase().startsWith('text/tab-separated-values') === true) return '\t';
  const sample = source.split('\n', 10).filter((line) => line.trim() !== '');
  let best = ',';
  let bestScore = 0;
  for (const candidate of CANDIDATES) {
    const counts = sample.map((line) => countOutsideQuotes(line, candidate));
    const first = counts[0] ?? 0;
    if (first === 0) continue;
    // Same count on every sampled line scores its count; inconsistent lines score less.
    const consistent = counts.filter((count) => count === first).length / counts.length;
    const score = first * consistent;
    if (score > bestScore) {
      best = candidate;
      bestScore = score;
    }
  }
  return best;
}

function countOutsideQuotes(line: string, delimiter: string): number {
  let count = 0;
  let quoted = false;
  for (const char of line) {
    if (char === '"') quoted = !quoted;
    else if (char === delimiter && !quoted) count += 1;
  }
  return count;
}
