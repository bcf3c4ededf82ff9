/**
 * A file that cannot become text. The vector store records `message` as the file's
 * `last_error` (code `unsupported_file` or `invalid_file`, OpenAI's values), so it says what is
 * wrong and what to send instead.
 */
export type DocumentErrorCode = 'unsupported_file' | 'invalid_file';

export class DocumentError extends Error {
  readonly code: DocumentErrorCode;

  constructor(code: DocumentErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DocumentError';
    this.code = code;
  }
}

export function isDocumentError(value: unknown): value is DocumentError {
  return value instanceof DocumentError;
}
