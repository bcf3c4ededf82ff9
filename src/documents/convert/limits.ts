/** Largest document converted (pdf.js and mammoth hold a document whole while they read it). */
export const CONVERT_MAX_BYTES = 50 * 1024 * 1024;
/** How long one conversion may take, fetching a URL included. */
export const CONVERT_TIMEOUT_MS = 60_000;
