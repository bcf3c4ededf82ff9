import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inlineImageUrls, sniffImageType, type InlineImageOptions } from '../../../src/endpoints/shared/inline-images.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import type { ChatRequest } from '../../../src/translate/chat/types.js';

/** Loopback image server only (never the internet); allowPrivate: true for the positive cases. */

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex');
const JPEG = Buffer.from('ffd8ffe000104a46494600010100', 'hex');
const GIF = Buffer.from('47494638396101000100800000', 'hex');
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x24, 0, 0, 0]), Buffer.from('WEBPVP8 ')]);
const HTML = Buffer.from('<!doctype html><title>not an image</title>');

let server: Server;
let origin: string;
let port: number;
let inFlight = 0;
let maxInFlight = 0;
let hits = 0;
const sockets = new Set<Socket>();

function send(response: ServerResponse, body: Buffer, type: string): void {
  response.writeHead(200, { 'content-type': type, 'content-length': String(body.length) }).end(body);
}

beforeAll(async () => {
  server = createServer((request, response) => {
    hits += 1;
    const path = request.url ?? '/';
    if (path === '/a.png') return send(response, PNG, 'application/octet-stream');
    if (path === '/b.jpg') return send(response, JPEG, 'image/jpeg');
    if (path === '/c.gif') return send(response, GIF, 'image/gif');
    if (path === '/d.webp') return send(response, WEBP, 'image/webp');
    if (path === '/page.html') return send(response, HTML, 'text/html');
    if (path === '/big.png') return send(response, Buffer.concat([PNG, Buffer.alloc(5000)]), 'image/png');
    if (path === '/hang') return undefined;
    if (path.startsWith('/slow/')) {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      setTimeout(() => {
        inFlight -= 1;
        send(response, path.endsWith('.jpg') ? JPEG : PNG, 'image/png');
      }, 40);
      return undefined;
    }
    response.writeHead(404).end();
    return undefined;
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const options = (change: Partial<InlineImageOptions> = {}): InlineImageOptions => ({
  allowPrivate: true,
  maxBytes: 1024 * 1024,
  timeoutMs: 2_000,
  signal: new AbortController().signal,
  ...change,
});

function withImages(...urls: string[]): ChatRequest {
  return {
    model: 'm',
    temperature: 0.2,
    messages: [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'earlier turn' },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: [{ type: 'text', text: 'what is this?' }, ...urls.map((url) => ({ type: 'image_url' as const, image_url: { url, detail: 'low' as const } }))] },
    ],
  };
}

function urlsOf(request: ChatRequest): string[] {
  const last = request.messages[3]!;
  return (last.content as Array<{ type: string; image_url?: { url: string } }>).filter((part) => part.type === 'image_url').map((part) => part.image_url!.url);
}

const dataUri = (mime: string, bytes: Buffer): string => `data:${mime};base64,${bytes.toString('base64')}`;

async function refusal(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe('VALIDATION_4005');
    expect((error as GatewayError).status).toBe(400);
    return error as GatewayError;
  }
  throw new Error('expected VALIDATION_4005');
}

describe('sniffImageType', () => {
  it.each([
    ['PNG', PNG, 'image/png'],
    ['JPEG', JPEG, 'image/jpeg'],
    ['GIF89a', GIF, 'image/gif'],
    ['GIF87a', Buffer.from('GIF87a\x01\x00', 'latin1'), 'image/gif'],
    ['WebP', WEBP, 'image/webp'],
    ['HTML', HTML, undefined],
    ['RIFF that is not WebP (WAV)', Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt ', 'latin1'), undefined],
    ['SVG', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), undefined],
    ['empty', Buffer.alloc(0), undefined],
    ['truncated PNG', PNG.subarray(0, 4), undefined],
  ])('%s', (_name, bytes, expected) => {
    expect(sniffImageType(bytes)).toBe(expected);
  });
});

describe('inlineImageUrls', () => {
  it('returns a request without image parts as it is', async () => {
    const request: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
    expect(await inlineImageUrls(request, options())).toBe(request);
  });

  it('fetches http URLs and re-encodes them as data URIs typed from the bytes, without mutating the input', async () => {
    const request = withImages(`${origin}/a.png`, `${origin}/b.jpg`, `${origin}/c.gif`, `${origin}/d.webp`);
    const snapshot = structuredClone(request);
    const inlined = await inlineImageUrls(request, options());
    expect(urlsOf(inlined)).toEqual([dataUri('image/png', PNG), dataUri('image/jpeg', JPEG), dataUri('image/gif', GIF), dataUri('image/webp', WEBP)]);
    expect(request).toEqual(snapshot);
    expect(inlined).not.toBe(request);
    // Everything else is carried over: other fields, other messages, text parts, detail.
    expect(inlined.temperature).toBe(0.2);
    expect(inlined.messages.slice(0, 3)).toEqual(request.messages.slice(0, 3));
    expect((inlined.messages[3]!.content as unknown[])[0]).toEqual({ type: 'text', text: 'what is this?' });
    expect((inlined.messages[3]!.content as Array<{ image_url?: { detail?: string } }>)[1]!.image_url!.detail).toBe('low');
  });

  it('fetches at most 4 images at a time and keeps each in its place', async () => {
    maxInFlight = 0;
    const urls = Array.from({ length: 10 }, (_, index) => `${origin}/slow/${index}.${index % 2 === 0 ? 'png' : 'jpg'}`);
    const inlined = await inlineImageUrls(withImages(...urls), options());
    expect(maxInFlight).toBe(4);
    expect(urlsOf(inlined)).toEqual(urls.map((_, index) => (index % 2 === 0 ? dataUri('image/png', PNG) : dataUri('image/jpeg', JPEG))));
  });

  it('names the field of the failing part', async () => {
    const request: ChatRequest = {
      model: 'm',
      messages: [
        { role: 'user', content: [{ type: 'image_url', image_url: { url: `${origin}/a.png` } }] },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: [{ type: 'text', text: 'and this?' }, { type: 'image_url', image_url: { url: `${origin}/page.html` } }] },
      ],
    };
    const error = await refusal(inlineImageUrls(request, options()));
    expect(error.details).toEqual({ field: 'messages[2].content[1].image_url.url' });
    expect(error.message).toBe('The image in "messages[2].content[1].image_url.url" is not a supported image (the server sent text/html, 42 bytes); send PNG, JPEG, GIF or WebP.');
  });

  describe('data URIs', () => {
    it('passes a well-formed image data URI through unchanged', async () => {
      const uri = dataUri('image/png', PNG);
      expect(urlsOf(await inlineImageUrls(withImages(uri), options()))).toEqual([uri]);
    });

    it('relabels a data URI whose declared type does not match its bytes', async () => {
      const payload = JPEG.toString('base64');
      expect(urlsOf(await inlineImageUrls(withImages(`data:image/png;base64,${payload}`), options()))).toEqual([`data:image/jpeg;base64,${payload}`]);
      expect(urlsOf(await inlineImageUrls(withImages(`DATA:image/jpg;name=x.jpg;BASE64,${payload}`), options()))).toEqual([`data:image/jpeg;base64,${payload}`]);
    });

    it.each([
      ['not base64 encoded', 'data:image/png,%89PNG', /must be base64 encoded/],
      ['broken base64', 'data:image/png;base64,iVBO$$$$', /not well-formed base64/],
      ['base64 of the wrong length', 'data:image/png;base64,iVBORw0KGgo', /not well-formed base64/],
      ['empty', 'data:image/png;base64,', /not well-formed base64/],
      ['not an image', dataUri('image/png', HTML), /not a supported image \(declared as image\/png\)/],
      ['SVG', dataUri('image/svg+xml', Buffer.from('<svg/>')), /not a supported image/],
    ])('refuses a data URI that is %s', async (_name, uri, message) => {
      const error = await refusal(inlineImageUrls(withImages(uri), options()));
      expect(error.message).toMatch(message);
      expect(error.details).toMatchObject({ field: 'messages[3].content[1].image_url.url' });
    });

    it('refuses a data URI over the size limit, naming the limit', async () => {
      const error = await refusal(inlineImageUrls(withImages(dataUri('image/png', Buffer.concat([PNG, Buffer.alloc(100)]))), options({ maxBytes: 100 })));
      expect(error.message).toBe('The image in "messages[3].content[1].image_url.url" is too large (120 bytes): the limit is 100 bytes (server.image_fetch_max_bytes).');
      expect(error.details).toEqual({ field: 'messages[3].content[1].image_url.url', limit_bytes: 100 });
    });
  });

  describe('refusals', () => {
    it.each([
      ['file:///etc/passwd', /uses the scheme "file"/],
      ['ftp://example.com/a.png', /uses the scheme "ftp"/],
      ['gopher://127.0.0.1/', /uses the scheme "gopher"/],
      ['/relative/a.png', /is not an absolute URL/],
    ])('refuses %s', async (url, message) => {
      const error = await refusal(inlineImageUrls(withImages(url), options()));
      expect(error.message).toMatch(message);
      expect(error.details).toEqual({ field: 'messages[3].content[1].image_url.url' });
    });

    it('refuses a loopback URL unless private URLs are allowed, without fetching it', async () => {
      const before = hits;
      const error = await refusal(inlineImageUrls(withImages(`${origin}/a.png`), options({ allowPrivate: false })));
      expect(error.message).toContain('unless server.allow_private_urls is true');
      expect(error.details).toEqual({ field: 'messages[3].content[1].image_url.url', reason: 'blocked-address' });
      expect(hits).toBe(before);
    });

    it('refuses a host name that resolves to a private address', async () => {
      const resolveHost = async () => [{ address: '192.168.1.20', family: 4 as const }];
      const error = await refusal(inlineImageUrls(withImages('https://images.example/cat.png'), options({ allowPrivate: false, resolveHost })));
      expect(error.message).toContain('"images.example" resolves to 192.168.1.20');
    });

    it('reports an upstream 404 as the client’s problem (400), not a provider fault', async () => {
      const error = await refusal(inlineImageUrls(withImages(`${origin}/nothing.png`), options()));
      expect(error.message).toMatch(/^Could not fetch the image URL in "messages\[3\]\.content\[1\]\.image_url\.url": the server answered HTTP 404; send a reachable public/);
      expect(error.details).toMatchObject({ reason: 'http-status' });
    });

    it('reports a timeout with the configured limit', async () => {
      const error = await refusal(inlineImageUrls(withImages(`${origin}/hang`), options({ timeoutMs: 150 })));
      expect(error.message).toContain('no complete answer within 150 ms; the limit is server.image_fetch_timeout_ms (150 ms)');
    });

    it('reports an image over the size limit with the limit', async () => {
      const error = await refusal(inlineImageUrls(withImages(`${origin}/big.png`), options({ maxBytes: 1000 })));
      expect(error.message).toBe('The image in "messages[3].content[1].image_url.url" is too large: the limit is 1000 bytes (server.image_fetch_max_bytes).');
    });

    it("rejects with the caller's abort reason when the client goes away", async () => {
      const controller = new AbortController();
      const reason = new Error('client closed');
      const pending = inlineImageUrls(withImages(`${origin}/hang`, `${origin}/hang`), options({ signal: controller.signal, timeoutMs: 5_000 }));
      setTimeout(() => controller.abort(reason), 50);
      await expect(pending).rejects.toBe(reason);
    });
  });
});
