import type { Catalog } from '../catalog/catalog.js';
import type { Config } from '../config/load.js';
import { GatewayError } from '../errors/gateway-error.js';
import { inferenceScope, responseHeaders, type RequestCall } from '../http/request-call.js';
import { sendJson } from '../http/respond.js';
import { callWithFallback, meterCall, resolveTarget, routesServing, type InferenceScope } from '../inference/index.js';
import { executeAs, type Execute, type ExecuteDeps } from './shared/execute.js';
import { IMAGE_PASSTHROUGH_FIELDS, imagesSchema } from './validation/embeddings-schema.js';
import { parseRequest } from './validation/parse.js';

const DEFAULT_SIZES = ['1024x1024', '1792x1024', '1024x1792'];

/** What image generation needs besides the scope: the plans (to name one with studio_access) and the catalog's default image model. */
export interface ImagesEnv {
  config: Pick<Config, 'plans'>;
  catalog: Pick<Catalog, 'firstOfType'>;
}

/**
 * Parse → pipeline → the spec's "Image result": needs studio_access; b64_json only; billed per
 * image (resolve, call with fallback over the routes that generate images, meter).
 */
export async function runImageGenerations(scope: InferenceScope, env: ImagesEnv, raw: unknown): Promise<Record<string, unknown>> {
  if (!scope.plan.benefits.includes('studio_access')) {
    const planWithIt = Object.entries(env.config.plans).find(([, plan]) => plan.benefits.includes('studio_access'))?.[0];
    throw new GatewayError('VALIDATION_4003', `Image generation needs the studio_access benefit, which plan "${scope.planName}" lacks${planWithIt === undefined ? '' : `; plan "${planWithIt}" has it`}.`, {
      benefit: 'studio_access',
      plan: scope.planName,
      ...(planWithIt === undefined ? {} : { required_plan: planWithIt }),
    });
  }
  const body = parseRequest(imagesSchema, raw);
  const modelName = body.model ?? env.catalog.firstOfType('image', scope.plan);
  if (modelName === undefined) throw new GatewayError('INFERENCE_3104', 'No image model is configured; add one under "models" with type "image".');
  const target = resolveTarget(scope, modelName, ['image']);
  const { resolved } = target;
  const size = body.size ?? '1024x1024';
  const sizes = resolved.model.image_sizes ?? DEFAULT_SIZES;
  if (!sizes.includes(size)) {
    throw new GatewayError('VALIDATION_4005', `size ${size} is not supported by "${resolved.id}"; use one of ${sizes.join(', ')}.`, { field: 'size' });
  }
  const extra: Record<string, unknown> = {};
  for (const field of IMAGE_PASSTHROUGH_FIELDS) if (body[field] !== undefined) extra[field] = body[field];
  const request = {
    prompt: body.prompt,
    n: body.n ?? 1,
    size,
    quality: body.quality ?? 'standard',
    style: body.style ?? 'vivid',
    ...(body.seed === undefined ? {} : { seed: body.seed }),
    ...(body.user === undefined ? {} : { user: body.user }),
    extra,
  };
  const { result, candidate } = await callWithFallback(scope, routesServing(scope, target.candidates, 'generateImages', 'image generation'), target.hints, ({ adapter, context }) =>
    adapter.generateImages!(request, context),
  );
  const metering = meterCall(scope, candidate, { inputTokens: 0, outputTokens: 0, cachedTokens: 0, images: result.images.length, audioMinutes: 0 });
  return {
    created: Math.floor(scope.deps.clock.now() / 1000),
    data: result.images.map((image) => ({ b64_json: image.b64_json, ...(image.revised_prompt === undefined ? {} : { revised_prompt: image.revised_prompt }) })),
    // Spec: images report numeric per-request totals instead of billing_cost.
    energy_cost: Number(metering.billing_cost.energy),
    credits_cost: Number(metering.billing_cost.credits),
    environment_impact: metering.environment_impact,
  };
}

/** POST /v1/images/generations (spec "Image result"): parse → pipeline → writer. */
export async function handleImageGenerations(call: RequestCall): Promise<void> {
  sendJson(call.response, 200, await runImageGenerations(inferenceScope(call), call.app, call.body), responseHeaders(call));
}

/** POST /v1/images/generations without HTTP (batch rows): the same answer as {status, body}. */
export function imageGenerationsExecute(deps: ExecuteDeps & ImagesEnv): Execute {
  const endpoint = { path: '/v1/images/generations', scope: 'inference.images' };
  return (input, principal, signal) => executeAs(deps, endpoint, principal, signal, (scope) => runImageGenerations(scope, deps, input));
}
