import { ERROR_CATALOG, type ErrorCode } from './catalog.js';

export type ErrorDetails = Record<string, unknown>;

/** A typed, wire-renderable error. Endpoints throw these; `errors/render.ts` writes them. */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  readonly details: ErrorDetails | undefined;
  /** Extra response headers (e.g. Retry-After). */
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message?: string,
    details?: ErrorDetails,
    options: { cause?: unknown; headers?: Record<string, string>; status?: number } = {},
  ) {
    const info = ERROR_CATALOG[code];
    super(message ?? info.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GatewayError';
    this.code = code;
    this.status = options.status ?? info.status;
    this.retryable = info.retryable;
    this.details = details;
    this.headers = options.headers ?? {};
  }
}

export function isGatewayError(value: unknown): value is GatewayError {
  return value instanceof GatewayError;
}
