import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { BATCH_ENDPOINTS } from '../../batches/batch-record.js';
import { countValidRows, MAX_BATCH_FILE_BYTES } from '../../batches/input-rows.js';
import { readJsonlLines } from '../../batches/jsonl.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { UserError } from '../user-error.js';

/**
 * Checks a batch input file before uploading it, with the gateway's own line rules (src/batches):
 * a problem is reported as FILE:LINE so it can be fixed without a round trip. The request count
 * limit is the server's to enforce (its config may differ from the default).
 */
export async function validateBatchFile(filePath: string, endpoint: string): Promise<{ rows: number; bytes: number }> {
  if (!(BATCH_ENDPOINTS as readonly string[]).includes(endpoint)) {
    throw new UserError(`unsupported batch endpoint ${JSON.stringify(endpoint)}`, `use one of ${BATCH_ENDPOINTS.join(', ')}`);
  }
  let bytes: number;
  try {
    bytes = (await stat(filePath)).size;
  } catch (error) {
    throw new UserError(`cannot read ${filePath} (${(error as NodeJS.ErrnoException).code ?? String(error)})`, 'check the path');
  }
  if (bytes > MAX_BATCH_FILE_BYTES) throw new UserError(`${filePath} is ${bytes} bytes; a batch input may be at most 105 MB`, 'split it into several files');
  try {
    const rows = await countValidRows(readJsonlLines(createReadStream(filePath), MAX_BATCH_FILE_BYTES), { endpoint, maxRequests: Number.POSITIVE_INFINITY });
    return { rows, bytes };
  } catch (error) {
    if (error instanceof GatewayError) {
      const line = error.details?.['line'];
      const where = typeof line === 'number' ? `${filePath}:${line}` : filePath;
      throw new UserError(`${where}: ${error.message.replace(/^Line \d+:? /, '')} (${error.code})`, 'fix the file and submit again');
    }
    throw error;
  }
}
