import { z } from 'zod';
import type { ImageRequest, ImageResult } from '../types.js';
import { nonEmpty, unexpectedBody } from './normalize.js';

/**
 * Image generation through an OpenAI-compatible `POST {base_url}/images/generations`. igw
 * only hands out base64 images, so `response_format` is always `b64_json`; the spec's
 * model-specific parameters (`request.extra`: steps, guidance, negative_prompt, …) go at the
 * top level of the body, as OpenAI-compatible image servers (Together, DeepInfra, local
 * diffusion servers) read them. An upstream that answers with `url` only is unreadable (3105):
 * igw never fetches or hosts image URLs.
 */
export function upstreamImagesBody(request: ImageRequest, upstreamModel: string): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  // Pass-through fields first so the gateway's own fields always win.
  for (const [key, value] of Object.entries(request.extra)) if (value !== undefined) body[key] = value;
  body['model'] = upstreamModel;
  body['prompt'] = request.prompt;
  body['n'] = request.n;
  body['size'] = request.size;
  if (isGptImageModel(upstreamModel)) {
    // OpenAI gpt-image models always answer in base64 and refuse `response_format` and `style`
    // (recorded: errors/openai-images-400-unknown-parameter.json); their quality scale is
    // low/medium/high/auto, so the spec's `hd` becomes `high` and `standard` becomes `auto`.
    if (request.quality !== undefined) body['quality'] = request.quality === 'hd' ? 'high' : 'auto';
  } else {
    body['response_format'] = 'b64_json';
    if (request.quality !== undefined) body['quality'] = request.quality;
    if (request.style !== undefined) body['style'] = request.style;
  }
  if (request.seed !== undefined) body['seed'] = request.seed;
  if (request.user !== undefined) body['user'] = request.user;
  return body;
}

/** OpenAI's gpt-image family (gpt-image-1, gpt-image-1-mini, …), whose request shape differs from dall-e's. */
export function isGptImageModel(upstreamModel: string): boolean {
  return /^gpt-image/i.test(upstreamModel);
}

const imagesResponseSchema = z
  .object({
    data: z.array(z.object({ b64_json: z.string().min(1), revised_prompt: z.string().nullable().optional() }).passthrough()).min(1),
  })
  .passthrough();

export function normalizeImages(body: unknown, providerId: string): ImageResult {
  const parsed = imagesResponseSchema.safeParse(body);
  if (!parsed.success) throw unexpectedBody(providerId, 'image answer (igw needs data[].b64_json)', parsed.error);
  return {
    images: parsed.data.data.map((image) => {
      const revised = nonEmpty(image.revised_prompt);
      return { b64_json: image.b64_json, ...(revised === undefined ? {} : { revised_prompt: revised }) };
    }),
  };
}
