import { modelObject } from '../catalog/model-object.js';
import { responseHeaders, type RequestCall } from '../http/request-call.js';
import { sendJson } from '../http/respond.js';

const CACHE_HEADER = { 'cache-control': 'max-age=300' };

function includeMeta(call: RequestCall): boolean {
  return call.query.get('include_meta') === 'true';
}

/** GET /v1/models: every model the key's plan may use. */
export async function handleListModels(call: RequestCall): Promise<void> {
  const meta = includeMeta(call);
  const data = call.app.catalog.visibleTo(call.plan).map(([id, model]) => modelObject(id, model, call.app.config, meta));
  sendJson(call.response, 200, { object: 'list', data }, responseHeaders(call, CACHE_HEADER));
}

/** GET /v1/models/{id}: unknown → INFERENCE_3001; advanced model on a plan without it → VALIDATION_4003. */
export async function handleRetrieveModel(call: RequestCall): Promise<void> {
  const resolved = call.app.catalog.resolve(call.params['id']!, call.plan, call.planName);
  sendJson(call.response, 200, modelObject(resolved.id, resolved.model, call.app.config, includeMeta(call)), responseHeaders(call, CACHE_HEADER));
}
