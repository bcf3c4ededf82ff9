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
          param: paramOf(gatewayError),
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
  // OpenAI-style endpoints (DESIGN §5): the spec's code, message and details, plus OpenAI's
  // `type` and `param`, which OpenAI clients read (Codex, the Agents SDK, LangChain).
  return { status: gatewayError.status, headers: gatewayError.headers, body: { error: { ...errorBody, type: openAIErrorType(gatewayError.status), param: paramOf(gatewayError) } } };
}

/** The request field an error names (details.field), as OpenAI's `param`; null when none. */
function paramOf(error: GatewayError): string | null {
  const field = error.details?.['field'];
  return typeof field === 'string' ? field : null;
}

/**
 * HTTP status → OpenAI error `type`: the names OpenAI's API sends for those statuses
 * (fixtures/recorded/errors: invalid_request_error on 400 and 404, insufficient_quota when out
 * of credit, `requests` on a request-rate limit, server_error on 5xx); 401/403 as the spec's
 * vector-store envelope names them.
 */
export function openAIErrorType(status: number): string {
  if (status === 401 || status === 403) return 'authentication_error';
  if (status === 402) return 'insufficient_quota';
  if (status === 429) return 'requests';
  return status >= 500 ? 'server_error' : 'invalid_request_error';
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
