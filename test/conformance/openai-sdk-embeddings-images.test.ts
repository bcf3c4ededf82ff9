import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startTestGateway, upstreamConfig, type TestGateway } from '../helpers/gateway.js';

/** The official `openai` SDK against igw in front of an OpenAI-compatible upstream. */
describe('openai SDK: embeddings and images through an upstream', () => {
  let upstream: FakeUpstream;
  let igw: TestGateway;
  const vectors: Record<string, number[]> = { alpha: [0.25, -0.5, 0.125], beta: [1.5, 0, -2.75], gamma: [0.1, 0.2, 0.3] };

  beforeAll(async () => {
    upstream = await startFakeUpstream((request) => {
      if (request.path === '/v1/embeddings') {
        const input = request.body.input as string[];
        // The upstream answers in base64 although igw asked for floats (some servers do).
        const base64 = input[0] === 'gamma';
        return {
          json: {
            object: 'list',
            data: input.map((text, index) => {
              const vector = vectors[text]!;
              if (!base64) return { object: 'embedding', index, embedding: vector };
              const buffer = Buffer.alloc(vector.length * 4);
              vector.forEach((value, position) => buffer.writeFloatLE(value, position * 4));
              return { object: 'embedding', index, embedding: buffer.toString('base64') };
            }),
            model: 'real-embed-1',
            usage: { prompt_tokens: input.length, total_tokens: input.length },
          },
        };
      }
      if (request.path === '/v1/images/generations') {
        return { json: { created: 1, data: Array.from({ length: request.body.n }, () => ({ b64_json: Buffer.from('png-bytes').toString('base64'), revised_prompt: 'a better fox' })) } };
      }
      return { status: 404, json: { error: { message: 'not found' } } };
    });
    const config = upstreamConfig(upstream.url);
    (config['models'] as Record<string, unknown>)['up-image'] = { type: 'image', routes: [{ provider: 'up', upstream_model: 'dall-e-3', pricing: { image_cost_per_image_eur: 0.04 } }] };
    igw = await startTestGateway(config);
  });
  afterAll(async () => {
    await igw.close();
    await upstream.close();
  });

  it('embeddings.create float', async () => {
    const result = await igw.openai().embeddings.create({ model: 'up-embed', input: ['alpha', 'beta'], encoding_format: 'float' });
    expect(result.data.map((item) => item.embedding)).toEqual([vectors['alpha'], vectors['beta']]);
    expect(result.usage).toMatchObject({ prompt_tokens: 2, total_tokens: 2 });
    expect(result.model).toBe('up-embed');
  });

  it('embeddings.create base64: the SDK decodes what igw encodes (little-endian float32)', async () => {
    const result = await igw.openai().embeddings.create({ model: 'up-embed', input: 'beta', encoding_format: 'base64' });
    // The SDK hands back the raw base64 string when the caller asked for base64.
    const encoded = result.data[0]!.embedding as unknown as string;
    const bytes = Buffer.from(encoded, 'base64');
    expect(Array.from({ length: bytes.length / 4 }, (_, index) => bytes.readFloatLE(index * 4))).toEqual(vectors['beta']);
  });

  it('embeddings.create default (SDK asks for base64 and decodes it to floats)', async () => {
    const result = await igw.openai().embeddings.create({ model: 'up-embed', input: ['alpha'] });
    expect(result.data[0]!.embedding).toEqual(vectors['alpha']);
  });

  it('an upstream answering in base64 is decoded by igw', async () => {
    const result = await igw.openai().embeddings.create({ model: 'up-embed', input: ['gamma'], encoding_format: 'float' });
    expect(result.data[0]!.embedding.map((value) => Math.round(value * 1e6) / 1e6)).toEqual(vectors['gamma']);
  });

  it('images.generate: b64_json images with revised_prompt and numeric costs', async () => {
    const result = (await igw.openai().images.generate({ model: 'up-image', prompt: 'a fox', n: 2, size: '1024x1024', response_format: 'b64_json', quality: 'hd', style: 'natural' })) as any;
    expect(result.data).toHaveLength(2);
    expect(Buffer.from(result.data[0].b64_json, 'base64').toString()).toBe('png-bytes');
    expect(result.data[0].revised_prompt).toBe('a better fox');
    expect(result.credits_cost).toBeCloseTo(0.08, 10);
    const sent = upstream.requests.at(-1)!;
    expect(sent.body).toMatchObject({ model: 'dall-e-3', n: 2, quality: 'hd', style: 'natural', response_format: 'b64_json' });
  });

  it('images.generate with a url response_format is refused with 400', async () => {
    await expect(igw.openai().images.generate({ model: 'up-image', prompt: 'a fox', response_format: 'url' })).rejects.toMatchObject({ status: 400 });
  });
});
