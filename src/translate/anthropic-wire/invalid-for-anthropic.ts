import { GatewayError } from '../../errors/gateway-error.js';

/**
 * A request the Anthropic wire cannot carry as the client meant it: VALIDATION_4005 naming the
 * field and the provider kind, never a silent drop or clamp (ARCHITECTURE principle 6).
 *
 * Translation imports errors/ (pure data: the catalog and the error class, no I/O) so that the
 * client sees the one catalog code the spec names, whichever layer found the problem.
 */
export function invalidForAnthropic(field: string, message: string): GatewayError {
  return new GatewayError('VALIDATION_4005', message, { field, provider_kind: 'anthropic' });
}
