import { decodeText } from './decode-text.js';
import { DocumentError } from './document-error.js';
import type { DocumentInput, ExtractedDocument } from './types.js';

/**
 * JSON (and JSON Lines) → one `path: value` line per leaf, e.g. `planets[2].moons[0]: Moon`.
 * Every value is then findable together with the keys that say what it is, which pretty-printed
 * JSON spreads over brace-only lines; records of an array (objects or arrays) are separated by a
 * blank line, so the chunker cuts between records rather than inside one. `null` and empty
 * strings, arrays and objects carry nothing and are left out.
 */
export function extractJson(input: DocumentInput): ExtractedDocument {
  const source = decodeText(input);
  const lines: string[] = [];
  const values = parseJsonOrLines(source, input.filename);
  if (values.length === 1) flatten(values[0], '', lines);
  else values.forEach((value, index) => {
    if (index > 0) lines.push('');
    flatten(value, `[${index}]`, lines);
  });
  return { text: lines.join('\n').replace(/\n{3,}/g, '\n\n').trim(), format: 'json' };
}

/** One JSON document, or JSON Lines (one value per non-empty line) when the whole is not JSON. */
function parseJsonOrLines(source: string, filename: string): unknown[] {
  try {
    return [JSON.parse(source)];
  } catch (error) {
    const rows = source.split('\n').filter((line) => line.trim() !== '');
    if (rows.length > 1) {
      try {
        return rows.map((line) => JSON.parse(line) as unknown);
      } catch {
        // Not JSON Lines either: report the whole-document error, the likelier intent.
      }
    }
    throw new DocumentError('invalid_file', `"${filename}" is not valid JSON (${(error as Error).message}).`, { cause: error });
  }
}

function flatten(value: unknown, path: string, lines: string[]): void {
  if (value === null || value === '') return;
  if (Array.isArray(value)) {
    const records = value.some((item) => item !== null && typeof item === 'object');
    value.forEach((item, index) => {
      if (records) lines.push('');
      flatten(item, `${path}[${index}]`, lines);
    });
    return;
  }
  if (typeof value === 'object') {
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      flatten(item, path === '' ? keyPath(key) : `${path}.${keyPath(key)}`, lines);
    }
    return;
  }
  // Multi-line strings stay on their line so the path stays next to the value.
  const text = typeof value === 'string' ? value.replace(/\s*\n\s*/g, ' ') : String(value);
  lines.push(path === '' ? text : `${path}: ${text}`);
}

/** Keys that would read ambiguously in a dotted path are quoted: `["a.b"]`. */
function keyPath(key: string): string {
  return /^[^.[\]\s:]+$/.test(key) ? key : `[${JSON.stringify(key)}]`;
}
