import { errors as undiciErrors } from 'undici';
import { describe, expect, it } from 'vitest';
import {
  classifyUpstreamException,
  classifyUpstreamStatus,
  classifyUpstreamStreamError,
  parseUpstreamError,
} from '../../../src/errors/classify-upstream.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { UpstreamTimeoutError } from '../../../src/providers/http-client.js';
import { readRecorded } from '../../helpers/recorded.js';

const openAiError = (message: string, code: string | null, type = 'invalid_request_error') => JSON.stringify({ error: { message, type, param: null, code } });

interface StatusCase {
  name: string;
  status: number;
  body: string;
  headers?: Record<string, string>;
  code: string;
  upstreamMessage?: string;
}

const statusCases: StatusCase[] = [
  { name: '429 with Retry-After', status: 429, body: openAiError('Rate limit reached for requests', 'rate_limit_exceeded', 'requests'), headers: { 'Retry-After': '12' }, code: 'INFERENCE_3108' },
  { name: '429 without a body', status: 429, body: '', code: 'INFERENCE_3108' },
  { name: '500', status: 500, body: openAiError('The server had an error while processing your request.', null, 'server_error'), code: 'INFERENCE_3105' },
  { name: '502 html page', status: 502, body: '<html><body>Bad gateway</body></html>', code: 'INFERENCE_3105' },
  { name: '503', status: 503, body: '{"error":{"message":"overloaded"}}', code: 'INFERENCE_3105' },
  { name: '529 overloaded', status: 529, body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', code: 'INFERENCE_3105' },
  { name: '401', status: 401, body: openAiError('Incorrect API key provided: sk-abc***xyz.', 'invalid_api_key'), code: 'INFERENCE_3105' },
  { name: '403', status: 403, body: '{"error":{"message":"forbidden"}}', code: 'INFERENCE_3105' },
  { name: '404', status: 404, body: '{"error":"model \\"llama9\\" not found, try pulling it first"}', code: 'INFERENCE_3105' },
  { name: '408', status: 408, body: '', code: 'INFERENCE_3107' },
  {
    name: '400 context_length_exceeded (OpenAI)',
    status: 400,
    body: openAiError("This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.", 'context_length_exceeded'),
    code: 'INFERENCE_3207',
    upstreamMessage: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
  },
  {
    name: '400 prompt is too long (Anthropic envelope)',
    status: 400,
    body: '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"}}',
    code: 'INFERENCE_3207',
  },
  {
    name: '400 vLLM maximum context length (top-level message)',
    status: 400,
    body: '{"object":"error","message":"This model\'s maximum context length is 4096 tokens. However, you requested 5000 tokens.","type":"BadRequestError","param":null,"code":400}',
    code: 'INFERENCE_3207',
  },
  {
    name: '400 llama.cpp exceed_context_size_error',
    status: 400,
    body: '{"error":{"code":400,"message":"the request exceeds the available context size","type":"exceed_context_size_error"}}',
    code: 'INFERENCE_3207',
  },
  {
    name: '400 content filter (Azure style)',
    status: 400,
    body: openAiError("The response was filtered due to the prompt triggering Azure OpenAI's content management policy.", 'content_filter'),
    code: 'INFERENCE_3208',
  },
  {
    name: '400 content_policy_violation',
    status: 400,
    body: openAiError('Your request was rejected as a result of our safety system.', 'content_policy_violation'),
    code: 'INFERENCE_3208',
  },
  {
    name: '422 FastAPI detail',
    status: 422,
    body: '{"detail":"temperature must be between 0 and 2"}',
    code: 'VALIDATION_4005',
    upstreamMessage: 'temperature must be between 0 and 2',
  },
  { name: '400 not JSON', status: 400, body: 'Bad Request', code: 'VALIDATION_4005' },
];

describe('classifyUpstreamStatus', () => {
  for (const testCase of statusCases) {
    it(`${testCase.name} → ${testCase.code}`, () => {
      const error = classifyUpstreamStatus(testCase.status, testCase.body, testCase.headers ?? {}, 'acme');
      expect(error).toBeInstanceOf(GatewayError);
      expect(error.code).toBe(testCase.code);
      expect(error.details).toMatchObject({ provider: 'acme', upstream_status: testCase.status });
      // The raw text stays in cause, never in the message.
      expect(error.cause).toEqual({ status: testCase.status, body: testCase.body });
      if (testCase.body.length > 0) expect(error.message).not.toContain(testCase.body);
      const upstreamMessage = parseUpstreamError(testCase.body).message;
      if (upstreamMessage !== undefined) expect(error.message).not.toContain(upstreamMessage);
      if (testCase.upstreamMessage !== undefined) expect(error.details?.['upstream_message']).toBe(testCase.upstreamMessage);
    });
  }

  it('copies Retry-After (any header case) into error.headers for 429 only', () => {
    expect(classifyUpstreamStatus(429, '', { 'retry-after': '3' }, 'acme').headers).toEqual({ 'Retry-After': '3' });
    expect(classifyUpstreamStatus(429, '', {}, 'acme').headers).toEqual({});
    expect(classifyUpstreamStatus(503, '', { 'retry-after': '3' }, 'acme').headers).toEqual({});
  });

  it('tells the user which config key to check', () => {
    expect(classifyUpstreamStatus(401, '', {}, 'acme').message).toContain('providers.acme.api_key');
    expect(classifyUpstreamStatus(403, '', {}, 'acme').message).toContain('providers.acme.api_key');
    expect(classifyUpstreamStatus(404, '', {}, 'acme').message).toContain('upstream_model');
  });

  it('keeps a provider secret echoed in a 401 body out of message and details', () => {
    const error = classifyUpstreamStatus(401, openAiError('Incorrect API key provided: sk-secret123.', 'invalid_api_key'), {}, 'acme');
    expect(error.message).not.toContain('sk-secret123');
    expect(JSON.stringify(error.details)).not.toContain('sk-secret123');
  });
});

describe('classifyUpstreamStatus over recorded error bodies', () => {
  const recordedCases: Array<{ file: string; status: number; code: string; upstreamMessage?: RegExp; upstreamCode?: string | number }> = [
    { file: 'errors/openai-429-insufficient-quota.json', status: 429, code: 'INFERENCE_3108', upstreamCode: 'insufficient_quota' },
    { file: 'errors/anthropic-429-rate-limit.json', status: 429, code: 'INFERENCE_3108' },
    { file: 'errors/openrouter-429-upstream-rate-limit.json', status: 429, code: 'INFERENCE_3108', upstreamCode: 429 },
    { file: 'errors/openai-chat-404-model-not-found.json', status: 404, code: 'INFERENCE_3105', upstreamCode: 'model_not_found' },
    { file: 'errors/anthropic-404-not-found.json', status: 404, code: 'INFERENCE_3105' },
    { file: 'errors/openai-chat-400-unsupported-parameter.json', status: 400, code: 'VALIDATION_4005', upstreamMessage: /^Unsupported parameter: 'max_tokens'/, upstreamCode: 'unsupported_parameter' },
    { file: 'errors/openai-responses-400-invalid-value.json', status: 400, code: 'VALIDATION_4005', upstreamMessage: /^Invalid 'temperature'/ },
    { file: 'errors/openai-images-400-unknown-parameter.json', status: 400, code: 'VALIDATION_4005', upstreamMessage: /^Unknown parameter: 'response_format'/ },
    { file: 'errors/anthropic-400-invalid-request.json', status: 400, code: 'VALIDATION_4005', upstreamMessage: /unexpected `tool_use_id` found in `tool_result` blocks/ },
    { file: 'errors/groq-400-tool-use-failed.json', status: 400, code: 'VALIDATION_4005', upstreamMessage: /^Tool call validation failed/, upstreamCode: 'tool_use_failed' },
  ];
  for (const testCase of recordedCases) {
    it(`${testCase.file} (HTTP ${testCase.status}) → ${testCase.code}`, () => {
      const body = readRecorded(testCase.file);
      const error = classifyUpstreamStatus(testCase.status, body, {}, 'acme');
      expect(error.code).toBe(testCase.code);
      expect(error.details?.['provider']).toBe('acme');
      expect(error.cause).toEqual({ status: testCase.status, body });
      const parsed = parseUpstreamError(body);
      expect(parsed.message).toBeTypeOf('string');
      expect(error.message).not.toContain(parsed.message!);
      if (testCase.upstreamMessage !== undefined) expect(error.details?.['upstream_message']).toMatch(testCase.upstreamMessage);
      if (testCase.upstreamCode !== undefined) expect(error.details?.['upstream_code']).toBe(testCase.upstreamCode);
    });
  }

  it('reads OpenRouter\'s real reason out of metadata.raw', () => {
    const parsed = parseUpstreamError(readRecorded('errors/openrouter-429-upstream-rate-limit.json'));
    expect(parsed.message).toMatch(/^Provider returned error: google\/gemini-2.0-flash-exp:free is temporarily rate-limited upstream/);
  });

  it('says "quota" for OpenAI insufficient_quota', () => {
    expect(classifyUpstreamStatus(429, readRecorded('errors/openai-429-insufficient-quota.json'), {}, 'acme').message).toMatch(/quota/);
  });
});

describe('classifyUpstreamException', () => {
  const timeoutCases: Array<[string, unknown]> = [
    ['undici headers timeout', new undiciErrors.HeadersTimeoutError()],
    ['undici body timeout', new undiciErrors.BodyTimeoutError()],
    ['undici connect timeout', new undiciErrors.ConnectTimeoutError()],
    ['our response deadline', new UpstreamTimeoutError(1500, 'response')],
    ['our idle deadline', new UpstreamTimeoutError(1500, 'idle')],
    ['a wrapped timeout', new TypeError('fetch failed', { cause: new undiciErrors.HeadersTimeoutError() })],
  ];
  for (const [name, error] of timeoutCases) {
    it(`${name} → INFERENCE_3107`, () => {
      const classified = classifyUpstreamException(error, 'acme', 'http://127.0.0.1:9');
      expect(classified.code).toBe('INFERENCE_3107');
      expect(classified.cause).toBe(error);
      expect(classified.details?.['provider']).toBe('acme');
    });
  }

  it('names the configured limit for our own deadline', () => {
    expect(classifyUpstreamException(new UpstreamTimeoutError(1500, 'response'), 'acme').message).toContain('1500 ms');
  });

  const connectionCases: Array<[string, unknown]> = [
    ['ECONNREFUSED', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' })],
    ['ECONNRESET', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ['ENOTFOUND', Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' })],
    ['undici socket error', new undiciErrors.SocketError('other side closed')],
    ['AggregateError of refused addresses', Object.assign(new AggregateError([Object.assign(new Error('a'), { code: 'ECONNREFUSED' }), Object.assign(new Error('b'), { code: 'ECONNREFUSED' })]), {})],
    ['a refused connection in a cause chain', new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }) })],
  ];
  for (const [name, error] of connectionCases) {
    it(`${name} → INFERENCE_3105 naming provider and origin`, () => {
      const classified = classifyUpstreamException(error, 'acme', 'http://127.0.0.1:9');
      expect(classified.code).toBe('INFERENCE_3105');
      expect(classified.message).toContain('"acme"');
      expect(classified.message).toContain('http://127.0.0.1:9');
      expect(classified.cause).toBe(error);
    });
  }

  it('passes a GatewayError through and treats the unknown as 3105', () => {
    const gatewayError = new GatewayError('INFERENCE_3108');
    expect(classifyUpstreamException(gatewayError, 'acme')).toBe(gatewayError);
    expect(classifyUpstreamException(new Error('weird'), 'acme').code).toBe('INFERENCE_3105');
    expect(classifyUpstreamException(new undiciErrors.RequestAbortedError(), 'acme').message).toMatch(/cancelled/);
  });
});

describe('classifyUpstreamStreamError', () => {
  it('turns an in-stream error object into 3105 with the provider\'s words in details', () => {
    const payload = { error: { message: 'Tool call validation failed', type: 'invalid_request_error', code: 'tool_use_failed', status_code: 400 } };
    const error = classifyUpstreamStreamError(payload, 'groq');
    expect(error.code).toBe('INFERENCE_3105');
    expect(error.details).toEqual({ provider: 'groq', upstream_message: 'Tool call validation failed', upstream_code: 'tool_use_failed' });
    expect(error.message).not.toContain('Tool call validation failed');
  });
});
