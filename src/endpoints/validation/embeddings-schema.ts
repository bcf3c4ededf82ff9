import { z } from 'zod';

/** POST /v1/embeddings body. Token arrays (number[] / number[][]) are accepted as OpenAI does. */
export const embeddingsSchema = z
  .object({
    model: z.string().min(1),
    input: z.union([z.string(), z.array(z.string()), z.array(z.number().int().nonnegative()), z.array(z.array(z.number().int().nonnegative()))]),
    encoding_format: z.enum(['float', 'base64']).optional(),
    dimensions: z.number().int().positive().optional(),
    user: z.string().optional(),
    preset: z.enum(['quality']).optional(),
  })
  .strict();

export const rerankSchema = z
  .object({
    model: z.string().min(1),
    query: z.string().min(1),
    documents: z.array(z.union([z.string(), z.object({ text: z.string() }).passthrough()])).min(1).max(10_000),
    top_n: z.number().int().positive().optional(),
    return_documents: z.boolean().optional(),
    max_chunks_per_doc: z.number().int().positive().optional(),
    user: z.string().optional(),
  })
  .strict();

/** Model-specific top-level image parameters the spec lets through to the provider. */
export const IMAGE_PASSTHROUGH_FIELDS = [
  'steps',
  'guidance',
  'input_images',
  'lora_weights',
  'lora_scale',
  'negative_prompt',
  'width',
  'height',
  'output_format',
  'output_quality',
] as const;

export const imagesSchema = z
  .object({
    prompt: z.string().min(1),
    model: z.string().min(1).optional(),
    n: z.number().int().min(1).max(10).optional(),
    size: z.string().regex(/^\d+x\d+$/, 'size looks like 1024x1024').optional(),
    quality: z.enum(['standard', 'hd']).optional(),
    style: z.enum(['vivid', 'natural']).optional(),
    response_format: z.literal('b64_json', { message: 'only b64_json is supported: igw never hosts image URLs' }).optional(),
    seed: z.number().int().optional(),
    user: z.string().optional(),
    steps: z.number().int().positive().optional(),
    guidance: z.number().nonnegative().optional(),
    input_images: z.array(z.string().min(1)).optional(),
    lora_weights: z.string().optional(),
    lora_scale: z.number().optional(),
    negative_prompt: z.string().optional(),
    width: z.number().int().positive().optional(),
    height: z.number().int().positive().optional(),
    output_format: z.enum(['png', 'jpeg', 'webp']).optional(),
    output_quality: z.number().int().min(0).max(100).optional(),
  })
  .strict();
