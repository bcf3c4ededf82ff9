import { GatewayApiError, GatewayUnreachableError } from '../client/gateway-client.js';

/**
 * Whether a failed step of a sync is the gateway's trouble rather than the file's: nothing
 * answered, the gateway was busy or broken (429, 5xx), or ingestion stopped on a server-side
 * error. Such a file is not "failed": `kb sync --watch` sends it again once the gateway is back,
 * a one-shot run says to run again. Only a refusal of the file itself (unsupported, invalid,
 * too large) is the file's failure.
 */
export function isGatewayFault(error: unknown): boolean {
  if (error instanceof GatewayUnreachableError) return true;
  if (error instanceof GatewayApiError) return error.status === 429 || error.status >= 500;
  return error instanceof IngestionServerError;
}

/** Ingestion ended `failed` with `last_error.code` `server_error` (e.g. the embedding provider was down). */
export class IngestionServerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IngestionServerError';
  }
}
