import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { createOpenAiCompatibleAdapter } from '../../../src/providers/openai-compatible/adapter.js';
import { normalizeImages, upstreamImagesBody } from '../../../src/providers/openai-compatible/images.js';
import type { UpstreamHttpClient } from '../../../src/providers/http-client.js';
import { readRecordedJson } from '../../helpers/recorded.js';

const request = { prompt: 'an otter', n: 2, size: '1024x1024', quality: 'hd', style: 'natural', seed: 7, user: 'u1', extra: { steps: 20, guidance: 3.5, negative_prompt: 'blur' } };

describe('upstreamImagesBody', () => {
  it('b64_json only; spec fields plus model-specific parameters at top level', () => {
    expect(upstreamImagesBody(request, 'dall-e-3')).toEqual({
      model: 'dall-e-3',
      prompt: 'an otter',
      n: 2,
      size: '1024x1024',
      response_format: 'b64_json',
      quality: 'hd',
      style: 'natural',
      seed: 7,
      user: 'u1',
      steps: 20,
      guidance: 3.5,
      negative_prompt: 'blur',
    });
  });

  it('a pass-through field cannot override the gateway fields', () => {
    const body = upstreamImagesBody({ ...request, extra: { model: 'other', response_format: 'url', n: 9 } }, 'flux');
    expect(body).toMatchObject({ model: 'flux', response_format: 'b64_json', n: 2 });
  });

  it('gpt-image models: no response_format or style (they refuse them), quality on their scale', () => {
    const body = upstreamImagesBody(request, 'gpt-image-1');
    expect(body).not.toHaveProperty('response_format');
    expect(body).not.toHaveProperty('style');
    expect(body['quality']).toBe('high');
    expect(upstreamImagesBody({ ...request, quality: 'standard' }, 'gpt-image-1-mini')['quality']).toBe('auto');
  });
});

describe('normalizeImages over recorded captures', () => {

  it('OpenAI generation: b64_json and revised_prompt per image', () => {
    const raw = readRecordedJson('images/openai-image-generation-b64.json');
    const result = normalizeImages(raw, 'openai');
    expect(result.images).toHaveLength(2);
    expect(result.images[0]!.b64_json).toBe(raw.data[0].b64_json);
    expect(result.images[0]!.revised_prompt).toBe(raw.data[0].revised_prompt);
    expect(result.images[1]).not.toHaveProperty('revised_prompt');
    // Only the PNG header of the (truncated) recording is real.
    expect(Buffer.from(result.images[0]!.b64_json, 'base64').subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  it('gpt-image style answer (extra top-level fields) reads the same way', () => {
    const result = normalizeImages(readRecordedJson('images/openai-image-edit-b64.json'), 'openai');
    expect(result.images).toHaveLength(1);
  });
});

describe('normalizeImages', () => {
  it('a url-only answer or an empty list is INFERENCE_3105 (igw never hosts URLs)', () => {
    for (const body of [{ data: [{ url: 'https://x/y.png' }] }, { data: [] }, {}]) {
      try {
        normalizeImages(body, 'p');
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(GatewayError);
        expect((error as GatewayError).code).toBe('INFERENCE_3105');
      }
    }
  });
});

describe('adapter.generateImages', () => {
  it('posts to {base_url}/images/generations; an upstream 400 is classified', async () => {
    const calls: Array<{ url: string; body: any }> = [];
    let reply: { status: number; json: unknown; text: string } = { status: 200, json: { data: [{ b64_json: 'aGk=' }] }, text: '' };
    const httpClient = {
      async postJson(url: string, body: unknown) {
        calls.push({ url, body });
        return { headers: {}, ...reply };
      },
    } as unknown as UpstreamHttpClient;
    const adapter = createOpenAiCompatibleAdapter({ id: 'img', baseUrl: 'http://127.0.0.1:1/v1', headers: {}, timeoutMs: 1000 }, httpClient);
    const context = { signal: new AbortController().signal, upstreamModel: 'flux-dev', requestId: 'x' };
    const result = await adapter.generateImages!({ prompt: 'p', n: 1, size: '512x512', extra: {} }, context);
    expect(calls[0]!.url).toBe('http://127.0.0.1:1/v1/images/generations');
    expect(result.images).toEqual([{ b64_json: 'aGk=' }]);
    const errorBody = { error: { message: "Unknown parameter: 'response_format'.", type: 'invalid_request_error', param: 'response_format', code: 'unknown_parameter' } };
    reply = { status: 400, json: errorBody, text: JSON.stringify(errorBody) };
    await expect(adapter.generateImages!({ prompt: 'p', n: 1, size: '512x512', extra: {} }, context)).rejects.toBeInstanceOf(GatewayError);
  });
});
