import { handleAudioTranscriptions } from '../endpoints/audio-transcriptions.js';
import { BATCH_READ_SCOPES, handleCancelBatch, handleCreateBatch, handleListBatches, handleRetrieveBatch } from '../endpoints/batches.js';
import { handleChatCompletions } from '../endpoints/chat-completions.js';
import { handleDocumentsConvert } from '../endpoints/documents-convert.js';
import { handleMcp } from '../endpoints/mcp.js';
import { handleInvokeTool, handleListTools } from '../endpoints/tools.js';
import { handleEmbeddings } from '../endpoints/embeddings.js';
import { FILES_READ_SCOPES, FILES_WRITE_SCOPES, handleCreateFile, handleDeleteFile, handleFileContent, handleListFiles, handleRetrieveFile } from '../endpoints/files.js';
import { handleImageGenerations } from '../endpoints/images.js';
import { handleMessages } from '../endpoints/messages.js';
import { handleMessagesCountTokens } from '../endpoints/messages-count-tokens.js';
import { handleListModels, handleRetrieveModel } from '../endpoints/models.js';
import { handleRerank } from '../endpoints/rerank.js';
import { handleCancelFileBatch, handleCreateFileBatch, handleListFileBatchFiles, handleRetrieveFileBatch } from '../endpoints/vector-stores/batches.js';
import { handleVectorStoreAttachFile, handleVectorStoreDeleteFile, handleVectorStoreFileContent, handleVectorStoreListFiles, handleVectorStoreRetrieveFile, handleVectorStoreUpdateFile } from '../endpoints/vector-stores/files.js';
import { handleSearch } from '../endpoints/vector-stores/search.js';
import { handleVectorStoreUpload } from '../endpoints/vector-stores/upload.js';
import { handleTextSource, handleUrlSource } from '../endpoints/vector-stores/sources.js';
import { handleCreateVectorStore, handleDeleteVectorStore, handleListVectorStores, handleRetrieveVectorStore, handleUpdateVectorStore } from '../endpoints/vector-stores/stores.js';
import { handleResponses, handleRetrieveResponse } from '../endpoints/responses.js';
import { handleHealth, handleRoot } from '../endpoints/health.js';
import { handleMetrics } from '../endpoints/metrics.js';
import type { MetricsExposition } from '../metrics/exposition.js';
import type { ErrorDialect } from '../errors/render.js';
import type { ServerResponse } from 'node:http';
import type { EndpointHandler } from './request-call.js';

/** One row per endpoint: THE route table (ARCHITECTURE "http/routes.ts"). */
export interface GatewayRoute {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  /** Required scope (alternatives allowed); null = any valid key. */
  scope: string | readonly string[] | null;
  body: 'json' | 'none';
  dialect: ErrorDialect;
  handler: EndpointHandler;
  /** The key must have vault access (vector stores). */
  vault?: boolean;
}

export const ROUTES: readonly GatewayRoute[] = [
  { method: 'POST', path: '/v1/chat/completions', scope: 'inference.chat', body: 'json', dialect: 'gateway', handler: handleChatCompletions },
  { method: 'POST', path: '/v1/messages', scope: 'inference.chat', body: 'json', dialect: 'messages', handler: handleMessages },
  { method: 'POST', path: '/v1/messages/count_tokens', scope: 'inference.chat', body: 'json', dialect: 'messages', handler: handleMessagesCountTokens },
  { method: 'POST', path: '/v1/responses', scope: 'inference.chat', body: 'json', dialect: 'gateway', handler: handleResponses },
  { method: 'GET', path: '/v1/responses/{id}', scope: 'inference.chat', body: 'none', dialect: 'gateway', handler: handleRetrieveResponse },
  { method: 'DELETE', path: '/v1/responses/{id}', scope: 'inference.chat', body: 'none', dialect: 'gateway', handler: handleRetrieveResponse },
  { method: 'POST', path: '/v1/embeddings', scope: 'inference.embeddings', body: 'json', dialect: 'gateway', handler: handleEmbeddings },
  { method: 'POST', path: '/v1/rerank', scope: 'inference.rerank', body: 'json', dialect: 'gateway', handler: handleRerank },
  { method: 'POST', path: '/v1/images/generations', scope: 'inference.images', body: 'json', dialect: 'gateway', handler: handleImageGenerations },
  { method: 'POST', path: '/v1/audio/transcriptions', scope: 'inference.audio', body: 'none', dialect: 'gateway', handler: handleAudioTranscriptions },
  { method: 'GET', path: '/v1/models', scope: 'inference.models', body: 'none', dialect: 'gateway', handler: handleListModels },
  { method: 'POST', path: '/v1/files', scope: FILES_WRITE_SCOPES, body: 'none', dialect: 'gateway', handler: handleCreateFile },
  { method: 'GET', path: '/v1/files', scope: FILES_READ_SCOPES, body: 'none', dialect: 'gateway', handler: handleListFiles },
  { method: 'GET', path: '/v1/files/{id}', scope: FILES_READ_SCOPES, body: 'none', dialect: 'gateway', handler: handleRetrieveFile },
  { method: 'GET', path: '/v1/files/{id}/content', scope: FILES_READ_SCOPES, body: 'none', dialect: 'gateway', handler: handleFileContent },
  { method: 'DELETE', path: '/v1/files/{id}', scope: FILES_WRITE_SCOPES, body: 'none', dialect: 'gateway', handler: handleDeleteFile },
  { method: 'POST', path: '/v1/batches', scope: null, body: 'json', dialect: 'gateway', handler: handleCreateBatch },
  { method: 'GET', path: '/v1/batches', scope: BATCH_READ_SCOPES, body: 'none', dialect: 'gateway', handler: handleListBatches },
  { method: 'GET', path: '/v1/batches/{id}', scope: BATCH_READ_SCOPES, body: 'none', dialect: 'gateway', handler: handleRetrieveBatch },
  { method: 'POST', path: '/v1/batches/{id}/cancel', scope: BATCH_READ_SCOPES, body: 'none', dialect: 'gateway', handler: handleCancelBatch },
  { method: 'GET', path: '/v1/models/{id}', scope: 'inference.models', body: 'none', dialect: 'gateway', handler: handleRetrieveModel },
  // JSON ({file_id} | {url}) or multipart (file): the handler reads the body by its content type.
  { method: 'POST', path: '/v1/documents/convert', scope: 'kit.documents', body: 'none', dialect: 'gateway', handler: handleDocumentsConvert },
  { method: 'GET', path: '/v1/tools', scope: 'kit.tools', body: 'none', dialect: 'gateway', handler: handleListTools },
  { method: 'POST', path: '/v1/tools/{name}/invoke', scope: 'kit.tools', body: 'json', dialect: 'gateway', handler: handleInvokeTool },
  // MCP Streamable HTTP: POST carries JSON-RPC; GET (server stream) and DELETE (session end) are
  // answered by the SDK's transport (405 in stateless mode).
  { method: 'POST', path: '/v1/mcp/{server}', scope: 'kit.mcp', body: 'json', dialect: 'gateway', handler: handleMcp },
  { method: 'GET', path: '/v1/mcp/{server}', scope: 'kit.mcp', body: 'none', dialect: 'gateway', handler: handleMcp },
  { method: 'DELETE', path: '/v1/mcp/{server}', scope: 'kit.mcp', body: 'none', dialect: 'gateway', handler: handleMcp },
  ...vectorStoreRoutes(),
];

/** A route that needs no key and no body (health probes, metrics): it answers from the headers the server made. */
export type PublicHandler = (response: ServerResponse, headers: Record<string, string>, metrics: MetricsExposition | undefined) => void | Promise<void>;

/** DESIGN §5: `GET /`, `HEAD /` and `GET /health` answer without a key. Matched before authentication. */
export const PUBLIC_ROUTES: Readonly<Record<string, PublicHandler>> = {
  'GET /': handleRoot,
  'HEAD /': handleRoot,
  'GET /health': handleHealth,
  'HEAD /health': handleHealth,
  // Issue 19: Prometheus scrapes without a key when `server.metrics` is on (else 404).
  'GET /metrics': handleMetrics,
};

/** Spec "Vector stores": read scope for GET and search, write scope for POST and DELETE; vault access; vector-store envelope. */
function vectorStoreRoutes(): GatewayRoute[] {
  const read = 'kit.knowledge.read';
  const write = 'kit.knowledge.write';
  const base = '/v1/vector_stores';
  const rows: Array<[GatewayRoute['method'], string, string, GatewayRoute['body'], EndpointHandler]> = [
    ['POST', base, write, 'json', handleCreateVectorStore],
    ['GET', base, read, 'none', handleListVectorStores],
    ['GET', `${base}/{vector_store_id}`, read, 'none', handleRetrieveVectorStore],
    ['POST', `${base}/{vector_store_id}`, write, 'json', handleUpdateVectorStore],
    ['DELETE', `${base}/{vector_store_id}`, write, 'none', handleDeleteVectorStore],
    ['POST', `${base}/{vector_store_id}/files`, write, 'json', handleVectorStoreAttachFile],
    ['GET', `${base}/{vector_store_id}/files`, read, 'none', handleVectorStoreListFiles],
    ['GET', `${base}/{vector_store_id}/files/{file_id}`, read, 'none', handleVectorStoreRetrieveFile],
    ['POST', `${base}/{vector_store_id}/files/{file_id}`, write, 'json', handleVectorStoreUpdateFile],
    ['DELETE', `${base}/{vector_store_id}/files/{file_id}`, write, 'none', handleVectorStoreDeleteFile],
    ['GET', `${base}/{vector_store_id}/files/{file_id}/content`, read, 'none', handleVectorStoreFileContent],
    ['POST', `${base}/{vector_store_id}/files/upload`, write, 'none', handleVectorStoreUpload],
    ['POST', `${base}/{vector_store_id}/sources/url`, write, 'json', handleUrlSource],
    ['POST', `${base}/{vector_store_id}/sources/text`, write, 'json', handleTextSource],
    ['POST', `${base}/{vector_store_id}/file_batches`, write, 'json', handleCreateFileBatch],
    ['GET', `${base}/{vector_store_id}/file_batches/{batch_id}`, read, 'none', handleRetrieveFileBatch],
    ['GET', `${base}/{vector_store_id}/file_batches/{batch_id}/files`, read, 'none', handleListFileBatchFiles],
    ['POST', `${base}/{vector_store_id}/file_batches/{batch_id}/cancel`, write, 'none', handleCancelFileBatch],
    // Search only reads, though it is a POST (spec: kit.knowledge.read grants search).
    ['POST', `${base}/{vector_store_id}/search`, read, 'json', handleSearch],
  ];
  return rows.map(([method, path, scope, body, handler]) => ({ method, path, scope, body, dialect: 'vector-store', handler, vault: true }));
}
