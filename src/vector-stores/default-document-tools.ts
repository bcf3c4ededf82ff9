import { chunkOptionsFor, chunkText } from '../chunking/index.js';
import { extractDocument } from '../documents/extract.js';
import { fetchUrlDocument } from '../documents/fetch-url.js';
import type { DocumentTools } from './document-tools.js';

/** Largest web page ingested by sources/url, and how long its fetch may take. */
export const URL_MAX_BYTES = 20 * 1024 * 1024;
export const URL_TIMEOUT_MS = 30_000;

/** The document layer (src/documents, src/chunking) as ingestion uses it. `allowPrivateUrls`: config server.allow_private_urls. */
export function documentTools(allowPrivateUrls: boolean): DocumentTools {
  return {
    extract: (input) => extractDocument(input),
    chunk: (text, strategy) => chunkText(text, chunkOptionsFor(strategy)),
    fetchUrl: (url, signal) => fetchUrlDocument(url, { maxBytes: URL_MAX_BYTES, timeoutMs: URL_TIMEOUT_MS, allowPrivate: allowPrivateUrls, signal }),
  };
}
