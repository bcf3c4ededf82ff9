import { responseHeaders, type RequestCall } from '../../http/request-call.js';
import { sendJson } from '../../http/respond.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { paginate, parseListQuery } from '../../vector-stores/pagination.js';
import type { FileBatchRecord } from '../../vector-stores/records.js';
import { parseRequest } from '../validation/parse.js';
import { attachableFiles } from './attach.js';
import { POLL_AFTER_MS, statusFilter } from './files.js';
import { createBatchSchema } from './schemas.js';

function sendBatch(call: RequestCall, batch: FileBatchRecord): void {
  const rendered = call.app.vectorStores.renderBatch(batch);
  const extra: Record<string, string> = rendered.status === 'in_progress' ? { 'openai-poll-after-ms': POLL_AFTER_MS } : {};
  sendJson(call.response, 200, rendered, responseHeaders(call, extra));
}

/** POST /v1/vector_stores/{id}/file_batches: `file_ids` (or OpenAI's `files` with per-file attributes). */
export async function handleCreateFileBatch(call: RequestCall): Promise<void> {
  const body = parseRequest(createBatchSchema, call.body);
  if (body.file_ids === undefined && body.files === undefined) throw new GatewayError('VALIDATION_4002', 'Missing required field "file_ids".', { field: 'file_ids' });
  if (body.file_ids !== undefined && body.files !== undefined) throw new GatewayError('VALIDATION_4005', 'Send either file_ids or files, not both.', { field: 'files' });
  const store = await call.app.vectorStores.requireActiveStore(call.account.id, call.params['vector_store_id']!);
  const entries = body.files ?? body.file_ids!.map((id) => ({ file_id: id }));
  const files = await attachableFiles(call, entries, store.chunking_strategy, { attributes: body.attributes, chunking_strategy: body.chunking_strategy });
  const batch = await call.app.vectorStores.createBatch(store, files);
  sendBatch(call, batch);
}

async function batchOf(call: RequestCall): Promise<FileBatchRecord> {
  const store = await call.app.vectorStores.requireStore(call.account.id, call.params['vector_store_id']!);
  return call.app.vectorStores.requireBatch(store, call.params['batch_id']!);
}

export async function handleRetrieveFileBatch(call: RequestCall): Promise<void> {
  sendBatch(call, await batchOf(call));
}

/** POST …/file_batches/{batch_id}/cancel: unfinished files are cancelled, finished ones kept. */
export async function handleCancelFileBatch(call: RequestCall): Promise<void> {
  const batch = await batchOf(call);
  await call.app.vectorStores.cancelBatch(batch);
  sendBatch(call, batch);
}

/** GET …/file_batches/{batch_id}/files (limit, order, after, before, filter). */
export async function handleListFileBatchFiles(call: RequestCall): Promise<void> {
  const query = parseListQuery(call.query);
  const status = statusFilter(call.query);
  const batch = await batchOf(call);
  const files = call.app.vectorStores.batchFiles(batch).filter((file) => status === null || file.status === status);
  sendJson(call.response, 200, paginate(files, query, (file) => call.app.vectorStores.renderFile(file)), responseHeaders(call));
}
