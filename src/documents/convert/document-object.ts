import { countTokens } from '../../tokens/tokenizer.js';
import type { ConvertedDocument, ConvertFormat } from './convert-document.js';

/** The `document` object of POST /v1/documents/convert (DESIGN §7), also `igw convert --json`. */
export interface DocumentObject {
  object: 'document';
  filename: string;
  type: ConvertedDocument['type'];
  format: ConvertFormat;
  /** The pages joined by blank lines. */
  text: string;
  /** `index` 0 is the first page. */
  pages: Array<{ index: number; text: string }>;
  metadata: { title: string | null; pages: number; characters: number; tokens: number };
}

export function documentObject(filename: string, format: ConvertFormat, converted: ConvertedDocument): DocumentObject {
  const text = converted.pages.filter((page) => page !== '').join('\n\n');
  return {
    object: 'document',
    filename,
    type: converted.type,
    format,
    text,
    pages: converted.pages.map((page, index) => ({ index, text: page })),
    metadata: { title: converted.title ?? null, pages: converted.pages.length, characters: text.length, tokens: countTokens(text) },
  };
}
