import { GatewayError, isGatewayError } from '../errors/gateway-error.js';
import type { InferenceScope } from './scope.js';

/**
 * A failure after output started (or between turns), as the error the client is told about:
 * a GatewayError as is; anything else is a provider fault we did not classify, so INFERENCE_3105,
 * with the original in `cause` and one error line in the gateway log (never sent to the client).
 * The request-log line gets its code.
 */
export function committedFailure(scope: InferenceScope, failure: unknown, message = 'The provider stream failed.'): GatewayError {
  const error = isGatewayError(failure) ? failure : new GatewayError('INFERENCE_3105', message, undefined, { cause: failure });
  if (!isGatewayError(failure)) scope.deps.logger.error('stream failed', { request_id: scope.requestId, error: String(failure) });
  scope.log.error_code = error.code;
  return error;
}
