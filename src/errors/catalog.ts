/**
 * The only home of error codes. Every code the spec names (spec "Errors") plus the few igw needs
 * for things the spec leaves open (unknown routes, body limits, host/origin guards, internal
 * faults). Status codes the spec leaves unstated are chosen the way the hosted APIs answer.
 */
export interface ErrorCodeInfo {
  status: number;
  retryable: boolean;
  message: string;
}

export const ERROR_CATALOG = {
  AUTH_1007: { status: 401, retryable: false, message: 'No API key: send `Authorization: Bearer <key>` or `x-api-key: <key>` (create one with `igw keys create`).' },
  AUTH_1008: { status: 401, retryable: false, message: 'Invalid API key: it is malformed, expired or revoked. Create a new one with `igw keys create`.' },
  AUTH_1015: { status: 403, retryable: false, message: 'This API key lacks the scope this endpoint needs.' },
  /** Spec "Authentication" §7; the vector-store envelope names it `insufficient_permissions` (errors/render.ts). */
  AUTH_1016: { status: 403, retryable: false, message: 'This API key has no vault access, which vector stores need: create a key with `igw keys create --vault`.' },
  AUTH_1028: { status: 429, retryable: true, message: 'Rate limit reached for this key; retry after the time in the Retry-After header.' },
  AUTH_1040: { status: 403, retryable: false, message: 'Host header not allowed: the gateway is bound to loopback and only answers loopback host names.' },
  AUTH_1041: { status: 403, retryable: false, message: 'Cross-origin request refused: add the origin to server.cors_origins to allow it.' },
  BILLING_2001: { status: 402, retryable: false, message: 'Out of energy and credits: top up with `igw accounts set ACCOUNT --energy N`.' },
  BILLING_2003: { status: 402, retryable: false, message: 'Out of credits: top up with `igw accounts set ACCOUNT --credits N`.' },
  INFERENCE_3001: { status: 404, retryable: false, message: 'Unknown model.' },
  INFERENCE_3103: { status: 502, retryable: true, message: 'All providers for this model failed.' },
  INFERENCE_3104: { status: 503, retryable: false, message: 'No provider is available for this model.' },
  INFERENCE_3105: { status: 502, retryable: true, message: 'The provider returned an error.' },
  INFERENCE_3107: { status: 504, retryable: true, message: 'The provider did not answer in time.' },
  INFERENCE_3108: { status: 429, retryable: true, message: 'The provider is rate limiting requests.' },
  INFERENCE_3201: { status: 400, retryable: false, message: 'This model does not accept images.' },
  INFERENCE_3202: { status: 400, retryable: false, message: 'This model does not support tools.' },
  INFERENCE_3207: { status: 400, retryable: false, message: "The input exceeds the model's context window." },
  INFERENCE_3208: { status: 400, retryable: false, message: "The provider's safety filter rejected the content." },
  INFERENCE_3302: { status: 404, retryable: false, message: 'Batch input file not found.' },
  INFERENCE_3303: { status: 400, retryable: false, message: 'Batch input file is not a valid batch file.' },
  INFERENCE_3304: { status: 413, retryable: false, message: 'Batch input file is larger than 105 MB.' },
  INFERENCE_3305: { status: 400, retryable: false, message: 'Too many requests in one batch file.' },
  INFERENCE_3306: { status: 400, retryable: false, message: 'A line of the batch file does not parse.' },
  VALIDATION_4001: { status: 400, retryable: false, message: 'previous_response_id is not supported: responses are stateless, send the full input.' },
  VALIDATION_4002: { status: 400, retryable: false, message: 'A required field is missing.' },
  VALIDATION_4003: { status: 403, retryable: false, message: 'Your plan does not include this feature.' },
  VALIDATION_4005: { status: 400, retryable: false, message: 'Invalid request format.' },
  VALIDATION_4007: { status: 400, retryable: false, message: 'Unsupported batch endpoint.' },
  VALIDATION_4008: { status: 400, retryable: false, message: 'Plan quota exceeded.' },
  VALIDATION_4013: { status: 413, retryable: false, message: 'Request body is too large.' },
  VALIDATION_4016: { status: 413, retryable: false, message: 'Audio file is larger than 25 MB.' },
  RESOURCE_5404: { status: 404, retryable: false, message: 'No such endpoint.' },
  RESOURCE_5405: { status: 405, retryable: false, message: 'Method not allowed on this endpoint.' },
  RESOURCE_5420: { status: 404, retryable: false, message: 'Vector store not found.' },
  RESOURCE_5421: { status: 404, retryable: false, message: 'File not found in this vector store.' },
  RESOURCE_5422: { status: 404, retryable: false, message: 'File batch not found in this vector store.' },
  RESOURCE_5410: { status: 404, retryable: false, message: 'File not found.' },
  RESOURCE_5411: { status: 404, retryable: false, message: 'Batch not found.' },
  RESOURCE_5412: { status: 409, retryable: false, message: 'The batch is already finished and cannot be cancelled.' },
  SYSTEM_9001: { status: 500, retryable: true, message: 'Internal error; the gateway log has the details.' },
  SYSTEM_9003: { status: 503, retryable: true, message: 'The gateway is shutting down; retry shortly.' },
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export function errorInfo(code: ErrorCode): ErrorCodeInfo {
  return ERROR_CATALOG[code];
}
