import { responseHeaders, type RequestCall } from '../../http/request-call.js';
import { sendJson } from '../../http/respond.js';
import { storeChunking } from '../../vector-stores/chunking.js';
import { paginate, parseListQuery } from '../../vector-stores/pagination.js';
import { parseRequest } from '../validation/parse.js';
import { attachableFiles } from './attach.js';
import { createStoreSchema, updateStoreSchema } from './schemas.js';

/** POST /v1/vector_stores: a store, optionally with files (embedding model fixed here, DESIGN §5). */
export async function handleCreateVectorStore(call: RequestCall): Promise<void> {
  const body = parseRequest(createStoreSchema, call.body);
  const { app } = call;
  const embeddingModel = body.embedding_model ?? app.config.vector_stores.embedding_model;
  // Refuses unknown or non-embeddings models now rather than at the first ingestion.
  app.catalog.resolve(embeddingModel, call.plan, call.planName, ['embeddings']);
  const chunking = storeChunking(body.chunking_strategy);
  const files = await attachableFiles(call, (body.file_ids ?? []).map((id) => ({ file_id: id })), chunking, {});
  const store = await app.vectorStores.createStore(call.account.id, {
    name: body.name ?? '',
    metadata: body.metadata ?? {},
    expires_after: body.expires_after ?? null,
    chunking_strategy: chunking,
    embedding_model: embeddingModel,
  });
  if (files.length > 0) await app.vectorStores.addFiles(store, files);
  sendJson(call.response, 200, app.vectorStores.render(store), responseHeaders(call));
}

/** GET /v1/vector_stores: the account's stores, newest first by default. */
export async function handleListVectorStores(call: RequestCall): Promise<void> {
  const query = parseListQuery(call.query);
  const stores = await call.app.vectorStores.listStores(call.account.id);
  sendJson(call.response, 200, paginate(stores, query, (store) => call.app.vectorStores.render(store)), responseHeaders(call));
}

export async function handleRetrieveVectorStore(call: RequestCall): Promise<void> {
  const store = await call.app.vectorStores.requireStore(call.account.id, call.params['vector_store_id']!);
  sendJson(call.response, 200, call.app.vectorStores.render(store), responseHeaders(call));
}

/** POST /v1/vector_stores/{id}: name, metadata, expires_after (null clears). */
export async function handleUpdateVectorStore(call: RequestCall): Promise<void> {
  const body = parseRequest(updateStoreSchema, call.body);
  const store = await call.app.vectorStores.requireActiveStore(call.account.id, call.params['vector_store_id']!);
  await call.app.vectorStores.updateStore(store, {
    ...(body.name === undefined ? {} : { name: body.name ?? '' }),
    ...(body.metadata === undefined ? {} : { metadata: body.metadata ?? {} }),
    ...(body.expires_after === undefined ? {} : { expires_after: body.expires_after }),
  });
  sendJson(call.response, 200, call.app.vectorStores.render(store), responseHeaders(call));
}

export async function handleDeleteVectorStore(call: RequestCall): Promise<void> {
  const store = await call.app.vectorStores.requireStore(call.account.id, call.params['vector_store_id']!);
  await call.app.vectorStores.deleteStore(store);
  sendJson(call.response, 200, { id: store.id, object: 'vector_store.deleted', deleted: true }, responseHeaders(call));
}
