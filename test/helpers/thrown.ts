import { expect } from 'vitest';
import { GatewayError } from '../../src/errors/gateway-error.js';

/** Runs `run`, asserts it throws a GatewayError, and returns it for further assertions. */
export function gatewayErrorOf(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error('expected a GatewayError');
}
