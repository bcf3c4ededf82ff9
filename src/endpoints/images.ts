import { GatewayError } from '../errors/gateway-error.js';
import { responseHeaders, timeUpstream, type RequestCall } from '../http/request-call.js';
import { sendJson } from '../http/respond.js';
import { tryRoutes } from '../routing/fallback.js';
import { meterCall } from './shared/metering.js';
import { fallbackOptions, prepareInference, routesServing } from './shared/resolve.js';
import { IMAGE_PASSTHROUGH_FIELDS, imagesSchema } from './validation/embeddings-schema.js';
import { parseRequest } from './validation/parse.js';

const DEFAULT_SIZES = ['1024x1024', '1792x1024', '1024x1792'];

/** POST /v1/images/generations (spec "Image result"): needs studio_access; b64_json only; billed per image. */
export async function handleImageGenerations(call: RequestCall): Promise<void> {
  if (!call.plan.benefits.includes('studio_access')) {
    const planWithIt = Object.entries(call.app.config.plans).find(([, plan]) => plan.benefits.includes('studio_access'))?.[0];
    throw new GatewayError('VALIDATION_4003', `Image generation needs the studio_access benefit, which plan "${call.planName}" lacks${planWithIt === undefined ? '' : `; plan "${planWithIt}" has it`}.`, {
      benefit: 'studio_access',
      plan: call.planName,
      ...(planWithIt === undefined ? {} : { required_plan: planWithIt }),
    });
  }
  const body = parseRequest(imagesSchema, call.body);
  const modelName = body.model ?? call.app.catalog.firstOfType('image', call.plan);
  if (modelName === undefined) throw new GatewayError('INFERENCE_3104', 'No image model is configured; add one under "models" with type "image".');
  const { resolved, candidates } = prepareInference(call, modelName, ['image']);
  const size = body.size ?? '1024x1024';
  const sizes = resolved.model.image_sizes ?? DEFAULT_SIZES;
  if (!sizes.includes(size)) {
    throw new GatewayError('VALIDATION_4005', `size ${size} is not supported by "${resolved.id}"; use one of ${sizes.join(', ')}.`, { field: 'size' });
  }
  const n = body.n ?? 1;
  const extra: Record<string, unknown> = {};
  for (const field of IMAGE_PASSTHROUGH_FIELDS) if (body[field] !== undefined) extra[field] = body[field];
  const { result, candidate } = await tryRoutes(routesServing(call, candidates, 'generateImages', 'image generation'), call.signal, (route) => {
    const adapter = call.app.providers.get(route.providerId);
    if (adapter.generateImages === undefined) throw new GatewayError('INFERENCE_3104', `Provider "${route.providerId}" does not generate images.`);
    return timeUpstream(call, () =>
      adapter.generateImages!(
        {
          prompt: body.prompt,
          n,
          size,
          quality: body.quality ?? 'standard',
          style: body.style ?? 'vivid',
          ...(body.seed === undefined ? {} : { seed: body.seed }),
          ...(body.user === undefined ? {} : { user: body.user }),
          extra,
        },
        { signal: call.signal, upstreamModel: route.route.upstream_model, requestId: call.requestId },
      ),
    );
  }, fallbackOptions(call));
  const metering = meterCall(call, candidate, { inputTokens: 0, outputTokens: 0, cachedTokens: 0, images: result.images.length, audioMinutes: 0 });
  sendJson(
    call.response,
    200,
    {
      created: Math.floor(call.app.clock.now() / 1000),
      data: result.images.map((image) => ({ b64_json: image.b64_json, ...(image.revised_prompt === undefined ? {} : { revised_prompt: image.revised_prompt }) })),
      // Spec: images report numeric per-request totals instead of billing_cost.
      energy_cost: Number(metering.billing_cost.energy),
      credits_cost: Number(metering.billing_cost.credits),
      environment_impact: metering.environment_impact,
    },
    responseHeaders(call),
  );
}
