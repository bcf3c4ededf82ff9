import { ANY_INFERENCE_SCOPE, requireScope } from '../auth/scopes.js';
import { batchObject, BATCH_ENDPOINTS, type BatchEndpoint, type BatchRecord } from '../batches/batch-record.js';
import { GatewayError } from '../errors/gateway-error.js';
import { responseHeaders, type RequestCall } from '../http/request-call.js';
import { sendJson } from '../http/respond.js';
import { createBatchSchema } from './validation/batches-schema.js';
import { parseRequest } from './validation/parse.js';

/** Spec: list, get and cancel accept any inference scope. */
export const BATCH_READ_SCOPES = ANY_INFERENCE_SCOPE;

/** Create needs the scope of the target endpoint (spec "Batches"). */
const ENDPOINT_SCOPES: Record<BatchEndpoint, string> = {
  '/v1/chat/completions': 'inference.chat',
  '/v1/embeddings': 'inference.embeddings',
  '/v1/images/generations': 'inference.images',
};

function isBatchEndpoint(value: string): value is BatchEndpoint {
  return (BATCH_ENDPOINTS as readonly string[]).includes(value);
}

/** POST /v1/batches: every create-time check, then a `queued` batch the runner picks up. */
export async function handleCreateBatch(call: RequestCall): Promise<void> {
  const body = parseRequest(createBatchSchema, call.body);
  if (!isBatchEndpoint(body.endpoint)) {
    throw new GatewayError('VALIDATION_4007', `endpoint must be one of ${BATCH_ENDPOINTS.join(', ')}; got ${JSON.stringify(body.endpoint)}.`, { field: 'endpoint' });
  }
  requireScope(call.principal.scopes, ENDPOINT_SCOPES[body.endpoint]);
  const record = await call.app.batches.create(call.principal, {
    input_file_id: body.input_file_id,
    endpoint: body.endpoint,
    completion_window: body.completion_window,
    metadata: body.metadata ?? null,
  });
  sendJson(call.response, 200, batchObject(record), responseHeaders(call));
}

/** GET /v1/batches: newest first; `limit` (default 20, max 100), `after`. */
export async function handleListBatches(call: RequestCall): Promise<void> {
  const limitText = call.query.get('limit');
  const limit = limitText === null ? 20 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new GatewayError('VALIDATION_4005', 'limit must be an integer between 1 and 100.', { field: 'limit' });
  const after = call.query.get('after');
  const page = await call.app.batches.list(call.account.id, { limit, ...(after ? { after } : {}) });
  const data = page.data.map(batchObject);
  sendJson(call.response, 200, { object: 'list', data, first_id: page.data[0]?.id ?? null, last_id: page.data.at(-1)?.id ?? null, has_more: page.has_more }, responseHeaders(call));
}

async function ownBatch(call: RequestCall): Promise<BatchRecord> {
  const id = call.params['id']!;
  const record = await call.app.batches.get(call.account.id, id);
  if (record === undefined) throw new GatewayError('RESOURCE_5411', `No batch with id "${id}".`, { batch_id: id });
  return record;
}

/** GET /v1/batches/{id}: poll status; request_counts update live. */
export async function handleRetrieveBatch(call: RequestCall): Promise<void> {
  sendJson(call.response, 200, batchObject(await ownBatch(call)), responseHeaders(call));
}

/** POST /v1/batches/{id}/cancel: → cancelling (then cancelled, finished rows kept). */
export async function handleCancelBatch(call: RequestCall): Promise<void> {
  const record = await call.app.batches.cancel(call.account.id, call.params['id']!);
  sendJson(call.response, 200, batchObject(record), responseHeaders(call));
}
