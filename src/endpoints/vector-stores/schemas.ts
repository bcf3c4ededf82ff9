import { z } from 'zod';
import { rankingOptionsSchema } from '../../vector-stores/ranking-options.js';

/** Spec "Limits": metadata up to 16 pairs (OpenAI's key ≤ 64 and value ≤ 512 characters). */
export const metadataSchema = z
  .record(z.string().max(64), z.string().max(512))
  .refine((value) => Object.keys(value).length <= 16, { message: 'at most 16 metadata pairs' });

/** File attributes (search filters read them): up to 16 keys, string values ≤ 512 characters. */
export const attributesSchema = z
  .record(z.string().max(64), z.union([z.string().max(512), z.number().finite(), z.boolean()]))
  .refine((value) => Object.keys(value).length <= 16, { message: 'at most 16 attributes' });

/** `expires_after`: anchor last_active_at, days a positive integer (non-positive → 400, spec "Errors"). */
export const expiresAfterSchema = z
  .object({
    anchor: z.literal('last_active_at'),
    days: z.number().int().positive().max(3650),
  })
  .strict();

/** Shape only; the limits (100–4096, overlap ≤ half) are checked by resolveChunkingStrategy. */
export const chunkingStrategySchema = z.unknown();

const fileIdSchema = z.string().min(1).max(256);

export const createStoreSchema = z
  .object({
    name: z.string().max(256).optional(),
    description: z.string().max(512).optional(),
    file_ids: z.array(fileIdSchema).max(500).optional(),
    expires_after: expiresAfterSchema.optional(),
    chunking_strategy: chunkingStrategySchema.optional(),
    metadata: metadataSchema.optional(),
    embedding_model: z.string().min(1).optional(),
  })
  .strict();

export const updateStoreSchema = z
  .object({
    name: z.string().max(256).nullable().optional(),
    expires_after: expiresAfterSchema.nullable().optional(),
    metadata: metadataSchema.nullable().optional(),
  })
  .strict();

export const attachFileSchema = z
  .object({
    file_id: fileIdSchema,
    attributes: attributesSchema.nullable().optional(),
    chunking_strategy: chunkingStrategySchema.optional(),
  })
  .strict();

export const updateFileSchema = z
  .object({
    attributes: attributesSchema.nullable(),
  })
  .strict();

export const textSourceSchema = z
  .object({
    name: z.string().min(1).max(256).optional(),
    text: z.string().min(1),
    attributes: attributesSchema.nullable().optional(),
    chunking_strategy: chunkingStrategySchema.optional(),
  })
  .strict();

export const urlSourceSchema = z
  .object({
    url: z.string().min(1).max(8192),
    attributes: attributesSchema.nullable().optional(),
    chunking_strategy: chunkingStrategySchema.optional(),
  })
  .strict();

export const createBatchSchema = z
  .object({
    file_ids: z.array(fileIdSchema).min(1).max(500).optional(),
    files: z
      .array(
        z
          .object({
            file_id: fileIdSchema,
            attributes: attributesSchema.nullable().optional(),
            chunking_strategy: chunkingStrategySchema.optional(),
          })
          .strict(),
      )
      .min(1)
      .max(500)
      .optional(),
    attributes: attributesSchema.nullable().optional(),
    chunking_strategy: chunkingStrategySchema.optional(),
  })
  .strict();

export const searchSchema = z
  .object({
    query: z.union([z.string(), z.array(z.string())]),
    max_num_results: z.number().int().min(1).max(50).optional(),
    filters: z.unknown().optional(),
    rewrite_query: z.boolean().optional(),
    ranking_options: rankingOptionsSchema.optional(),
  })
  .strict();
