import type { Principal } from '../auth/authenticate.js';
import type { Config } from '../config/load.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { FileRecord } from '../files/file-record.js';
import type { FileStore } from '../files/file-store.js';
import type { Clock } from '../util/clock.js';
import type { IdGenerator } from '../util/ids.js';
import type { BatchRecord } from './batch-record.js';
import type { NewBatch } from './batches-port.js';
import { completionWindowSeconds } from './completion-window.js';
import { MAX_BATCH_FILE_BYTES } from './input-rows.js';

/** Longest input line: the request body limit of a live request. */
export function maxLineBytes(config: Config): number {
  return config.server.max_body_bytes;
}

/**
 * The create-time checks on the input file, in the spec's order: it exists and is the caller's
 * (INFERENCE_3302), has purpose batch (3303), is at most 105 MB (3304). The line checks follow
 * as the caller streams the rows (input-rows.ts). Endpoint, scope, window and metadata are checked
 * by the endpoint before.
 */
export async function checkedInputFile(files: FileStore, principal: Principal, batch: NewBatch): Promise<FileRecord> {
  completionWindowSeconds(batch.completion_window); // its VALIDATION_4005 comes before any file check
  const file = await files.get(principal.account, batch.input_file_id);
  if (file === undefined) {
    throw new GatewayError('INFERENCE_3302', `No file with id "${batch.input_file_id}" (upload it with POST /v1/files, purpose "batch", using a key of this account).`, { field: 'input_file_id' });
  }
  if (file.purpose !== 'batch') {
    throw new GatewayError('INFERENCE_3303', `File ${file.id} has purpose "${file.purpose}"; a batch input must be uploaded with purpose "batch".`, { field: 'input_file_id' });
  }
  if (file.bytes > MAX_BATCH_FILE_BYTES) {
    throw new GatewayError('INFERENCE_3304', `File ${file.id} is ${file.bytes} bytes; a batch input may be at most 105 MB (${MAX_BATCH_FILE_BYTES} bytes). Split it.`, { field: 'input_file_id', limit_bytes: MAX_BATCH_FILE_BYTES });
  }
  return file;
}

/** A `queued` batch record of `total` requests (spec "Batch object"). */
export function newBatchRecord(principal: Principal, batch: NewBatch, file: FileRecord, total: number, clock: Clock, ids: IdGenerator): BatchRecord {
  const now = Math.floor(clock.now() / 1000);
  return {
    id: ids.next('batch_'),
    account: principal.account,
    key_id: principal.keyId,
    scopes: [...principal.scopes],
    endpoint: batch.endpoint,
    input_file_id: file.id,
    completion_window: batch.completion_window,
    status: 'queued',
    output_file_id: null,
    error_file_id: null,
    errors: null,
    created_at: now,
    in_progress_at: null,
    expires_at: now + completionWindowSeconds(batch.completion_window),
    finalizing_at: null,
    completed_at: null,
    failed_at: null,
    expired_at: null,
    cancelling_at: null,
    cancelled_at: null,
    total,
    succeeded: 0,
    errored: 0,
    metadata: batch.metadata,
  };
}
