import { GatewayError } from './gateway-error.js';

/** Wire shapes an endpoint can speak (fixed per route in http/routes.ts). */
export type ErrorDialect = 'gateway' | 'vector-store';

export interface RenderedError {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

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
          code: gatewayError.code,
        },
      },
    };
  }
  const errorBody: Record<string, unknown> = { code: gatewayError.code, message: gatewayError.message };
  if (gatewayError.details !== undefined) errorBody['details'] = gatewayError.details;
  return { status: gatewayError.status, headers: gatewayError.headers, body: { error: errorBody } };
}
