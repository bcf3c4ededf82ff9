import { describe, expect, it } from 'vitest';
import { ERROR_CATALOG, errorInfo, type ErrorCode } from '../../../src/errors/catalog.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';

const codes = Object.keys(ERROR_CATALOG) as ErrorCode[];

/** Spec "Errors" retry rule. */
const RETRYABLE = new Set(['INFERENCE_3103', 'INFERENCE_3105', 'INFERENCE_3107', 'INFERENCE_3108', 'AUTH_1028']);
const shouldRetry = (code: string) => RETRYABLE.has(code) || code.startsWith('SYSTEM_');

describe('ERROR_CATALOG', () => {
  it.each(codes)('%s has a valid HTTP status, a message and the spec retry flag', (code) => {
    const info = errorInfo(code);
    expect(Number.isInteger(info.status)).toBe(true);
    expect(info.status).toBeGreaterThanOrEqual(400);
    expect(info.status).toBeLessThan(600);
    expect(info.message.length).toBeGreaterThan(0);
    expect(info.retryable).toBe(shouldRetry(code));
    expect(code).toMatch(/^(AUTH_1|BILLING_2|INFERENCE_3|VALIDATION_4|RESOURCE_|SYSTEM_9)\d+$/);
  });

  it.each<[ErrorCode, number]>([
    ['AUTH_1007', 401],
    ['AUTH_1008', 401],
    ['AUTH_1015', 403],
    ['AUTH_1028', 429],
    ['BILLING_2001', 402],
    ['BILLING_2003', 402],
    ['INFERENCE_3001', 404],
    ['INFERENCE_3103', 502],
    ['INFERENCE_3104', 503],
    ['INFERENCE_3107', 504],
    ['INFERENCE_3108', 429],
    ['INFERENCE_3201', 400],
    ['INFERENCE_3202', 400],
    ['INFERENCE_3207', 400],
    ['INFERENCE_3208', 400],
    ['VALIDATION_4002', 400],
    ['VALIDATION_4005', 400],
    ['VALIDATION_4008', 400],
  ])('%s has the spec status %d', (code, status) => {
    expect(ERROR_CATALOG[code].status).toBe(status);
  });

  it.each([
    'AUTH_1007', 'AUTH_1008', 'AUTH_1015', 'AUTH_1028', 'BILLING_2001', 'BILLING_2003', 'INFERENCE_3001', 'INFERENCE_3103', 'INFERENCE_3104',
    'INFERENCE_3105', 'INFERENCE_3107', 'INFERENCE_3108', 'INFERENCE_3201', 'INFERENCE_3202', 'INFERENCE_3207', 'INFERENCE_3208', 'VALIDATION_4001',
    'VALIDATION_4002', 'VALIDATION_4003', 'VALIDATION_4005', 'VALIDATION_4007', 'VALIDATION_4008', 'VALIDATION_4016', 'INFERENCE_3302',
    'INFERENCE_3303', 'INFERENCE_3304', 'INFERENCE_3305', 'INFERENCE_3306',
  ])('the spec code %s is in the catalog', (code) => {
    expect(codes).toContain(code);
  });

  it.each(codes)('GatewayError(%s) takes status and retryable from the catalog', (code) => {
    const error = new GatewayError(code);
    expect(error.code).toBe(code);
    expect(error.status).toBe(ERROR_CATALOG[code].status);
    expect(error.retryable).toBe(ERROR_CATALOG[code].retryable);
    expect(error.message).toBe(ERROR_CATALOG[code].message);
    expect(error.details).toBeUndefined();
    expect(error.headers).toEqual({});
  });

  it('a status override and headers are kept', () => {
    const error = new GatewayError('INFERENCE_3105', 'upstream said 503', { upstream_status: 503 }, { status: 503, headers: { 'retry-after': '2' } });
    expect(error).toMatchObject({ status: 503, retryable: true, details: { upstream_status: 503 }, headers: { 'retry-after': '2' }, message: 'upstream said 503' });
  });
});
