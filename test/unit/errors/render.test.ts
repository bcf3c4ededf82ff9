import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { renderError } from '../../../src/errors/render.js';

describe('renderError: gateway dialect', () => {
  it.each<{ name: string; error: GatewayError; status: number; body: unknown; headers?: Record<string, string> }>([
    {
      name: 'with details',
      error: new GatewayError('AUTH_1015', 'needs scope', { required_scope: 'inference.chat' }),
      status: 403,
      body: { error: { code: 'AUTH_1015', message: 'needs scope', details: { required_scope: 'inference.chat' }, type: 'authentication_error', param: null } },
    },
    {
      name: 'without details (no details key)',
      error: new GatewayError('AUTH_1007'),
      status: 401,
      body: { error: { code: 'AUTH_1007', message: new GatewayError('AUTH_1007').message, type: 'authentication_error', param: null } },
    },
    {
      name: 'headers carried',
      error: new GatewayError('AUTH_1028', 'slow down', { limit: 1 }, { headers: { 'retry-after': '30' } }),
      status: 429,
      body: { error: { code: 'AUTH_1028', message: 'slow down', details: { limit: 1 }, type: 'requests', param: null } },
      headers: { 'retry-after': '30' },
    },
    {
      name: 'validation',
      error: new GatewayError('VALIDATION_4002', 'Missing required field "model".', { field: 'model' }),
      status: 400,
      body: { error: { code: 'VALIDATION_4002', message: 'Missing required field "model".', details: { field: 'model' }, type: 'invalid_request_error', param: 'model' } },
    },
  ])('$name', ({ error, status, body, headers }) => {
    expect(renderError(error)).toEqual({ status, headers: headers ?? {}, body });
    expect(renderError(error, 'gateway')).toEqual({ status, headers: headers ?? {}, body });
  });

  it.each<{ name: string; thrown: unknown }>([
    { name: 'a TypeError', thrown: new TypeError('x is undefined') },
    { name: 'a string', thrown: 'boom' },
    { name: 'undefined', thrown: undefined },
    { name: 'a plain object', thrown: { code: 'AUTH_1007' } },
  ])('$name → SYSTEM_9001 500 without leaking internals', ({ thrown }) => {
    const rendered = renderError(thrown);
    expect(rendered.status).toBe(500);
    expect(rendered.headers).toEqual({});
    const body = rendered.body as { error: { code: string; message: string } };
    expect(body.error.code).toBe('SYSTEM_9001');
    expect(body.error.message).not.toContain('x is undefined');
    expect(body.error.message).not.toContain('boom');
    expect(body.error).not.toHaveProperty('details');
    expect(body.error).toMatchObject({ type: 'server_error', param: null });
  });

  it.each<{ code: string; status: number; type: string }>([
    { code: 'BILLING_2003', status: 402, type: 'insufficient_quota' },
    { code: 'RESOURCE_5404', status: 404, type: 'invalid_request_error' },
    { code: 'INFERENCE_3103', status: 502, type: 'server_error' },
    { code: 'INFERENCE_3104', status: 503, type: 'server_error' },
  ])('$code → OpenAI type $type next to the spec fields', ({ code, status, type }) => {
    const rendered = renderError(new GatewayError(code as never, 'm'));
    expect(rendered.status).toBe(status);
    expect(rendered.body).toEqual({ error: { code, message: 'm', type, param: null } });
  });
});

describe('renderError: vector-store dialect', () => {
  it.each<{ name: string; error: unknown; status: number; error_body: Record<string, unknown> }>([
    { name: 'missing key', error: new GatewayError('AUTH_1007', 'no key'), status: 401, error_body: { message: 'no key', type: 'authentication_error', param: null, code: 'AUTH_1007' } },
    { name: 'invalid key', error: new GatewayError('AUTH_1008', 'bad key'), status: 401, error_body: { message: 'bad key', type: 'authentication_error', param: null, code: 'AUTH_1008' } },
    { name: 'no scope', error: new GatewayError('AUTH_1015', 'scope', { required_scope: 'kit.knowledge.read' }), status: 403, error_body: { message: 'scope', type: 'authentication_error', param: null, code: 'AUTH_1015' } },
    { name: 'validation with field', error: new GatewayError('VALIDATION_4005', 'empty query', { field: 'query' }), status: 400, error_body: { message: 'empty query', type: 'invalid_request_error', param: 'query', code: 'VALIDATION_4005' } },
    { name: 'non-string field', error: new GatewayError('VALIDATION_4005', 'x', { field: 3 }), status: 400, error_body: { message: 'x', type: 'invalid_request_error', param: null, code: 'VALIDATION_4005' } },
    { name: 'no vault access', error: new GatewayError('AUTH_1016', 'vault'), status: 403, error_body: { message: 'vault', type: 'authentication_error', param: null, code: 'insufficient_permissions' } },
    { name: 'not found', error: new GatewayError('RESOURCE_5404', 'no such store'), status: 404, error_body: { message: 'no such store', type: 'invalid_request_error', param: null, code: 'RESOURCE_5404' } },
  ])('$name', ({ error, status, error_body }) => {
    const rendered = renderError(error, 'vector-store');
    expect(rendered.status).toBe(status);
    expect(rendered.body).toEqual({ error: error_body });
    expect(Object.keys((rendered.body as { error: object }).error).sort()).toEqual(['code', 'message', 'param', 'type']);
  });

  it('an unknown error is SYSTEM_9001 500', () => {
    const rendered = renderError(new Error('secret stack'), 'vector-store');
    expect(rendered.status).toBe(500);
    expect((rendered.body as { error: { code: string; message: string } }).error.code).toBe('SYSTEM_9001');
    expect((rendered.body as { error: { message: string } }).error.message).not.toContain('secret stack');
  });
});

describe('renderError: messages dialect (Anthropic-style type, spec fields kept)', () => {
  it.each([
    ['VALIDATION_4005', 400, 'invalid_request_error'],
    ['AUTH_1008', 401, 'authentication_error'],
    ['BILLING_2001', 402, 'billing_error'],
    ['AUTH_1015', 403, 'permission_error'],
    ['INFERENCE_3001', 404, 'not_found_error'],
    ['VALIDATION_4013', 413, 'request_too_large'],
    ['AUTH_1028', 429, 'rate_limit_error'],
    ['INFERENCE_3104', 503, 'overloaded_error'],
    ['INFERENCE_3105', 502, 'api_error'],
    ['SYSTEM_9001', 500, 'api_error'],
  ] as const)('%s → %i %s', (code, status, type) => {
    const rendered = renderError(new GatewayError(code, 'why', { field: 'x' }), 'messages');
    expect(rendered.status).toBe(status);
    expect(rendered.body).toEqual({ type: 'error', error: { type, code, message: 'why', details: { field: 'x' } } });
  });
});
