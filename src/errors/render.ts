import { GatewayError } from './gateway-error.js';

/** Wire shapes an endpoint can speak (fixed per route in http/routes.ts). */
export type ErrorDialect = 'gateway' | 'vector-store' | 'messages';

export interface RenderedError {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Codes the vector-store envelope spells differently (spec "Authentication" §7). */
const VECTOR_STORE_CODES: Partial<Record<string, string>> = { AUTH_1016: 'insufficient_permissions' };

/** Turns any thrown value into the envelope of the route's dialect. Unknown errors become SYSTEM_9001. */
export function renderError(error: unknown, dialect: ErrorDialect = 'gateway'): RenderedError {
  const gatewayError = error instanceof GatewayError ? error : new GatewayError('SYSTEM_9001', undefined, undefined, { cause: error });
  if (dialect === 'vector-store') {
    return {
      status: gatewayError.status,
      headers: gatewayError.headers,
      body: {
        error: {
          message: gatewayError.message,
          type: gatewayError.status === 401 || gatewayError.status === 403 ? 'authentication_error' : 'invalid_request_error',
          param: typeof gatewayError.details?.['field'] === 'string' ? gatewayError.details['field'] : null,
          code: VECTOR_STORE_CODES[gatewayError.code] ?? gatewayError.code,
        },
      },
    };
  }
  const errorBody: Record<string, unknown> = { code: gatewayError.code, message: gatewayError.message };
  if (gatewayError.details !== undefined) errorBody['details'] = gatewayError.details;
  if (dialect === 'messages') {
    // Message-style endpoints: the Anthropic envelope (SDKs pick their error class from the HTTP
    // status and read error.type) that still carries the spec's code, message and details.
    return { status: gatewayError.status, headers: gatewayError.headers, body: { type: 'error', error: { type: messagesErrorType(gatewayError.status), ...errorBody } } };
  }
  return { status: gatewayError.status, headers: gatewayError.headers, body: { error: errorBody } };
}

/** HTTP status → Anthropic error `type` (the names the Anthropic API uses for those statuses). */
export function messagesErrorType(status: number): string {
  switch (status) {
    case 400:
      return 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 402:
      return 'billing_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 503:
    case 529:
      return 'overloaded_error';
    default:
      return status >= 400 && status < 500 ? 'invalid_request_error' : 'api_error';
  }
}
