import { GatewayError } from '../errors/gateway-error.js';
import type { RequestCall } from '../http/request-call.js';
import type { PreparedResponses } from './responses.js';

/** stream=true (spec "Streaming"). */
export async function streamResponses(_call: RequestCall, _prepared: PreparedResponses): Promise<void> {
  throw new GatewayError('VALIDATION_4005', 'stream=true is not available on /v1/responses in this build yet; send the request without "stream".', { field: 'stream' });
}
