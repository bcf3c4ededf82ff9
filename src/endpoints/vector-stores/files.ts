import { GatewayError } from '../../errors/gateway-error.js';
import { responseHeaders, type RequestCall } from '../../http/request-call.js';
import { sendJson } from '../../http/respond.js';
import { paginate, parseListQuery } from '../../vector-stores/pagination.js';
import type { FileStatus, VectorStoreFileRecord, VectorStoreRecord } from '../../vector-stores/records.js';
import { parseRequest } from '../validation/parse.js';
import { attachableFiles } from './attach.js';
import { attachFileSchema, updateFileSchema } from './schemas.js';

/** How often the SDK poll helpers should come back while a file is ingesting (openai-poll-after-ms). */
export const POLL_AFTER_MS = '200';

function storeOf(call: RequestCall): Promise<VectorStoreRecord> {
  return call.app.vectorStores.requireStore(call.account.id, call.params['vector_store_id']!);
}

function activeStoreOf(call: RequestCall): Promise<VectorStoreRecord> {
  return call.app.vectorStores.requireActiveStore(call.account.id, call.params['vector_store_id']!);
}

export function sendFile(call: RequestCall, file: VectorStoreFileRecord): void {
  const extra: Record<string, string> = file.status === 'in_progress' ? { 'openai-poll-after-ms': POLL_AFTER_MS } : {};
  sendJson(call.response, 200, call.app.vectorStores.renderFile(file), responseHeaders(call, extra));
}

const STATUSES: readonly FileStatus[] = ['in_progress', 'completed', 'failed', 'cancelled'];

/** `filter` query of the file lists: one status. */
export function statusFilter(query: URLSearchParams): FileStatus | null {
  const filter = query.get('filter');
  if (filter === null) return null;
  if (!STATUSES.includes(filter as FileStatus)) throw new GatewayError('VALIDATION_4005', `filter must be one of ${STATUSES.join(', ')}.`, { field: 'filter' });
  return filter as FileStatus;
}

/** POST /v1/vector_stores/{id}/files: attach a file of the Files API (same id again: idempotent). */
export async function handleVectorStoreAttachFile(call: RequestCall): Promise<void> {
  const body = parseRequest(attachFileSchema, call.body);
  const store = await activeStoreOf(call);
  const existing = call.app.vectorStores.repository.file(store.id, body.file_id);
  if (existing !== undefined && (existing.status === 'in_progress' || existing.status === 'completed')) {
    sendFile(call, existing);
    return;
  }
  // New, or failed / cancelled before: (re)ingested.
  const [record] = await call.app.vectorStores.addFiles(store, await attachableFiles(call, [body], store.chunking_strategy, {}));
  sendFile(call, record!);
}

/** GET /v1/vector_stores/{id}/files (limit, order, after, before, filter). */
export async function handleVectorStoreListFiles(call: RequestCall): Promise<void> {
  const query = parseListQuery(call.query);
  const status = statusFilter(call.query);
  const store = await storeOf(call);
  const files = call.app.vectorStores.filesOf(store).filter((file) => status === null || file.status === status);
  sendJson(call.response, 200, paginate(files, query, (file) => call.app.vectorStores.renderFile(file)), responseHeaders(call));
}

export async function handleVectorStoreRetrieveFile(call: RequestCall): Promise<void> {
  const store = await storeOf(call);
  sendFile(call, call.app.vectorStores.requireFile(store, call.params['file_id']!));
}

/** POST /v1/vector_stores/{id}/files/{file_id}: replaces the attributes (search filters see them at once). */
export async function handleVectorStoreUpdateFile(call: RequestCall): Promise<void> {
  const body = parseRequest(updateFileSchema, call.body);
  const store = await activeStoreOf(call);
  const file = call.app.vectorStores.requireFile(store, call.params['file_id']!);
  await call.app.vectorStores.updateAttributes(file, body.attributes ?? {});
  sendFile(call, file);
}

export async function handleVectorStoreDeleteFile(call: RequestCall): Promise<void> {
  const store = await storeOf(call);
  const file = call.app.vectorStores.requireFile(store, call.params['file_id']!);
  await call.app.vectorStores.deleteFile(file);
  sendJson(call.response, 200, { id: file.id, object: 'vector_store.file.deleted', deleted: true }, responseHeaders(call));
}

/** Chunks per content page (a page is a few hundred KB at most). */
export const CONTENT_PAGE_CHUNKS = 100;

/**
 * GET /v1/vector_stores/{id}/files/{file_id}/content: the parsed chunk text, a page at a time;
 * `next_page` is the token to pass back as `?page=`.
 */
export async function handleVectorStoreFileContent(call: RequestCall): Promise<void> {
  const store = await storeOf(call);
  const file = call.app.vectorStores.requireFile(store, call.params['file_id']!);
  const rawPage = call.query.get('page');
  let start = 0;
  if (rawPage !== null) {
    if (!/^\d+$/.test(rawPage)) throw new GatewayError('VALIDATION_4005', 'page must be a next_page value from a previous content page.', { field: 'page' });
    start = Number(rawPage);
  }
  const chunks = await call.app.vectorStores.fileChunks(file);
  const page = chunks.slice(start, start + CONTENT_PAGE_CHUNKS);
  const next = start + page.length;
  const hasMore = next < chunks.length;
  sendJson(
    call.response,
    200,
    {
      object: 'vector_store.file_content.page',
      data: page.map((chunk) => ({ type: 'text', text: chunk.text })),
      has_more: hasMore,
      next_page: hasMore ? String(next) : null,
    },
    responseHeaders(call),
  );
}
