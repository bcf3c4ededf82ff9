import type { AppContext } from '../app/context.js';
import { chunkOptionsFor, chunkText } from '../chunking/index.js';
import { extractDocument } from '../documents/extract.js';
import type { DocumentTools } from './document-tools.js';

/** The document layer (src/documents, src/chunking) as ingestion uses it. */
export function documentTools(app: AppContext): DocumentTools {
  void app;
  return {
    extract: (input) => extractDocument(input),
    chunk: (text, strategy) => chunkText(text, chunkOptionsFor(strategy)),
  };
}
