import { z } from 'zod';

/**
 * POST /v1/batches body (spec "Batches"). `endpoint` is a plain string here: an unsupported value
 * is its own code (VALIDATION_4007), checked by the endpoint. Metadata: at most 16 pairs, keys
 * up to 64 characters, values up to 512 (the hosted API's limits).
 */
export const createBatchSchema = z
  .object({
    input_file_id: z.string().min(1),
    endpoint: z.string().min(1),
    completion_window: z.string().min(1).default('24h'),
    metadata: z
      .record(z.string().max(64), z.string().max(512))
      .refine((metadata) => Object.keys(metadata).length <= 16, 'at most 16 metadata pairs')
      .nullable()
      .optional(),
  })
  .strict();
