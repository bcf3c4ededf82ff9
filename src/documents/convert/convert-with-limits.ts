import { GatewayError } from '../../errors/gateway-error.js';
import { isDocumentError } from '../document-error.js';
import type { DocumentInput } from '../types.js';
import { convertDocument, type ConvertedDocument, type ConvertFormat } from './convert-document.js';
import { CONVERT_TIMEOUT_MS } from './limits.js';

/**
 * A conversion on a request's behalf: parser failures are the document's own (400 naming why,
 * `details.reason` unsupported_file | invalid_file), never a 500; slow ones are cut off.
 */
export async function convertWithLimits(input: DocumentInput, format: ConvertFormat, field = 'file'): Promise<ConvertedDocument> {
  const filename = input.filename;
  const conversion = convertDocument(input, format);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new GatewayError('VALIDATION_4005', `"${filename}" took longer than ${CONVERT_TIMEOUT_MS / 1000} s to convert; split it into smaller documents.`, { field })), CONVERT_TIMEOUT_MS);
  });
  try {
    return await Promise.race([conversion, deadline]);
  } catch (error) {
    if (isDocumentError(error)) throw new GatewayError('VALIDATION_4005', error.message, { field, reason: error.code });
    if (error instanceof GatewayError) throw error;
    // A parser that throws on odd input is still the document's failure to read, not a fault of
    // the gateway: the client gets a 400 that says so (the cause stays in the log).
    throw new GatewayError('VALIDATION_4005', `"${filename}" could not be converted (${(error as Error).message}); it may be damaged.`, { field, reason: 'invalid_file' }, { cause: error });
  } finally {
    clearTimeout(timer);
    // A conversion that lost the race still settles later; its failure is not an unhandled rejection.
    conversion.catch(() => undefined);
  }
}
