import { describe, expect, it } from 'vitest';
import { chatCompletionSchema } from '../../../src/endpoints/validation/chat-schema.js';
import { fieldPath, parseRequest } from '../../../src/endpoints/validation/parse.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';

const valid = { model: 'local-echo', messages: [{ role: 'user', content: 'hi' }] };
const weather = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } };

function rejection(body: unknown): GatewayError {
  try {
    parseRequest(chatCompletionSchema, body);
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error(`expected ${JSON.stringify(body)} to be refused`);
}

describe('fieldPath', () => {
  it.each<{ path: PropertyKey[]; expected: string }>([
    { path: [], expected: '' },
    { path: ['model'], expected: 'model' },
    { path: ['messages', 0, 'role'], expected: 'messages[0].role' },
    { path: ['messages', 2, 'content', 1, 'image_url', 'url'], expected: 'messages[2].content[1].image_url.url' },
    { path: ['tool_choice', 'function', 'name'], expected: 'tool_choice.function.name' },
  ])('$path → $expected', ({ path, expected }) => {
    expect(fieldPath(path)).toBe(expected);
  });
});

describe('parseRequest(chatCompletionSchema): accepted bodies', () => {
  it.each<{ name: string; body: Record<string, unknown> }>([
    { name: 'minimal', body: valid },
    { name: 'every role', body: { model: 'm', messages: [{ role: 'system', content: 's' }, { role: 'developer', content: 'd' }, { role: 'user', content: 'u' }, { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] }, { role: 'tool', tool_call_id: 'c1', content: 'r' }] } },
    { name: 'content parts', body: { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] }] } },
    { name: 'temperature boundaries', body: { ...valid, temperature: 0 } },
    { name: 'temperature 2', body: { ...valid, temperature: 2 } },
    { name: 'temperature with neutral top_p', body: { ...valid, temperature: 0.2, top_p: 1 } },
    { name: 'top_p with neutral temperature', body: { ...valid, temperature: 1, top_p: 0.5 } },
    { name: 'n 10', body: { ...valid, n: 10 } },
    { name: 'top_logprobs 20 with logprobs', body: { ...valid, logprobs: true, top_logprobs: 20 } },
    { name: 'penalties at the limits', body: { ...valid, frequency_penalty: -2, presence_penalty: 2 } },
    { name: 'tool_choice naming a present tool', body: { ...valid, tools: [weather], tool_choice: { type: 'function', function: { name: 'get_weather' } } } },
    { name: 'stream with include_usage', body: { ...valid, stream: true, stream_options: { include_usage: true } } },
    { name: 'json_schema response format', body: { ...valid, response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' } } } } },
    { name: 'nulls for optional fields', body: { ...valid, temperature: null, top_p: null, n: null, stop: null, seed: null } },
  ])('$name', ({ body }) => {
    expect(parseRequest(chatCompletionSchema, body)).toMatchObject({ model: body['model'] });
  });
});

describe('parseRequest(chatCompletionSchema): refused bodies', () => {
  it.each<{ name: string; body: unknown; code: 'VALIDATION_4002' | 'VALIDATION_4005'; field: string }>([
    // missing required fields → 4002 naming the field
    // A missing model is refused after blueprints load (one may name it): test/integration/http-errors.test.ts.
    { name: 'missing messages', body: { model: 'm' }, code: 'VALIDATION_4002', field: 'messages' },
    { name: 'missing messages[0].role', body: { model: 'm', messages: [{ content: 'hi' }] }, code: 'VALIDATION_4002', field: 'messages[0].role' },
    { name: 'missing messages[0].content', body: { model: 'm', messages: [{ role: 'user' }] }, code: 'VALIDATION_4002', field: 'messages[0].content' },
    { name: 'missing messages[1].tool_call_id', body: { model: 'm', messages: [{ role: 'user', content: 'x' }, { role: 'tool', content: 'r' }] }, code: 'VALIDATION_4002', field: 'messages[1].tool_call_id' },
    // unknown parameters → 4005 naming them
    { name: 'unknown top-level parameter', body: { ...valid, temprature: 0.5 }, code: 'VALIDATION_4005', field: 'temprature' },
    { name: 'unknown nested parameter', body: { ...valid, stream: true, stream_options: { include_usage: true, extra: 1 } }, code: 'VALIDATION_4005', field: 'stream_options.extra' },
    // ranges and types → 4005 naming the field
    { name: 'temperature 3', body: { ...valid, temperature: 3 }, code: 'VALIDATION_4005', field: 'temperature' },
    { name: 'temperature -0.1', body: { ...valid, temperature: -0.1 }, code: 'VALIDATION_4005', field: 'temperature' },
    { name: 'temperature as a string', body: { ...valid, temperature: '0.5' }, code: 'VALIDATION_4005', field: 'temperature' },
    { name: 'top_p 1.5', body: { ...valid, top_p: 1.5 }, code: 'VALIDATION_4005', field: 'top_p' },
    { name: 'n 11', body: { ...valid, n: 11 }, code: 'VALIDATION_4005', field: 'n' },
    { name: 'n 0', body: { ...valid, n: 0 }, code: 'VALIDATION_4005', field: 'n' },
    { name: 'n 1.5', body: { ...valid, n: 1.5 }, code: 'VALIDATION_4005', field: 'n' },
    { name: 'top_logprobs 21', body: { ...valid, logprobs: true, top_logprobs: 21 }, code: 'VALIDATION_4005', field: 'top_logprobs' },
    { name: 'frequency_penalty 2.5', body: { ...valid, frequency_penalty: 2.5 }, code: 'VALIDATION_4005', field: 'frequency_penalty' },
    { name: 'empty messages', body: { model: 'm', messages: [] }, code: 'VALIDATION_4005', field: 'messages' },
    { name: 'empty model', body: { model: '', messages: valid.messages }, code: 'VALIDATION_4005', field: 'model' },
    { name: 'model as a number', body: { model: 4, messages: valid.messages }, code: 'VALIDATION_4005', field: 'model' },
    { name: 'unknown role', body: { model: 'm', messages: [{ role: 'robot', content: 'x' }] }, code: 'VALIDATION_4005', field: 'messages[0].role' },
    { name: 'max_tokens 0', body: { ...valid, max_tokens: 0 }, code: 'VALIDATION_4005', field: 'max_tokens' },
    { name: 'more than 4 stop sequences', body: { ...valid, stop: ['a', 'b', 'c', 'd', 'e'] }, code: 'VALIDATION_4005', field: 'stop' },
    // cross-field rules
    { name: 'temperature and top_p both non-neutral', body: { ...valid, temperature: 0.5, top_p: 0.9 }, code: 'VALIDATION_4005', field: 'top_p' },
    { name: 'top_logprobs without logprobs', body: { ...valid, top_logprobs: 3 }, code: 'VALIDATION_4005', field: 'top_logprobs' },
    { name: 'stream_options without stream', body: { ...valid, stream_options: { include_usage: true } }, code: 'VALIDATION_4005', field: 'stream_options' },
    { name: 'tool_choice naming an absent tool', body: { ...valid, tools: [weather], tool_choice: { type: 'function', function: { name: 'get_time' } } }, code: 'VALIDATION_4005', field: 'tool_choice.function.name' },
    { name: 'tool_choice naming a tool with no tools at all', body: { ...valid, tool_choice: { type: 'function', function: { name: 'get_time' } } }, code: 'VALIDATION_4005', field: 'tool_choice.function.name' },
    { name: 'tool_choice required without tools', body: { ...valid, tool_choice: 'required' }, code: 'VALIDATION_4005', field: 'tool_choice' },
    // not an object at all
    { name: 'an array body', body: [valid], code: 'VALIDATION_4005', field: 'body' },
    { name: 'a null body', body: null, code: 'VALIDATION_4005', field: 'body' },
    { name: 'a string body', body: 'hello', code: 'VALIDATION_4005', field: 'body' },
  ])('$name → $code on $field', ({ body, code, field }) => {
    const error = rejection(body);
    expect(error.code).toBe(code);
    expect(error.status).toBe(400);
    expect(error.details).toEqual({ field });
    if (field !== 'body') expect(error.message).toContain(field);
  });
});

describe('parseRequest: refusals phrased for people, not as validator output', () => {
  it.each<{ body: Record<string, unknown>; message: string }>([
    { body: { ...valid, temperature: 'hot' }, message: 'Invalid value for "temperature": must be a number, not a string.' },
    { body: { ...valid, temperature: 3 }, message: 'Invalid value for "temperature": must be at most 2.' },
    { body: { ...valid, messages: [] }, message: 'Invalid value for "messages": must not be empty.' },
  ])('$message', ({ body, message }) => {
    const error = rejection(body);
    expect(error.message).toBe(message);
    expect(error.message).not.toMatch(/Invalid input|expected \w+, received/);
  });
});
