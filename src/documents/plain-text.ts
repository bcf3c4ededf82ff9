import { decodeText } from './decode-text.js';
import type { DocumentInput, ExtractedDocument } from './types.js';

/** Plain text and source code: the decoded text as is (indentation matters in code). */
export function extractPlainText(input: DocumentInput, format: 'text' | 'code'): ExtractedDocument {
  return { text: decodeText(input), format };
}
