import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { safeFetch, SafeFetchError, type SafeFetchOptions } from '../../../src/net/safe-fetch.js';

/** Loopback servers only (never the internet): positive cases use allowPrivate: true. */

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

interface LoopbackServer {
  origin: string;
  port: number;
  hits: Array<{ path: string; host: string | undefined }>;
  /** Per path: whether the response was fully written before the connection closed. */
  finished: Map<string, boolean>;
  close(): Promise<void>;
}

async function startServer(routes: Record<string, Handler>, host = '127.0.0.1'): Promise<LoopbackServer> {
  const hits: LoopbackServer['hits'] = [];
  const finished = new Map<string, boolean>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((request, response) => {
    const path = request.url ?? '/';
    hits.push({ path, host: request.headers.host });
    finished.set(path, false);
    response.on('finish', () => finished.set(path, true));
    const handler = routes[path.split('?')[0]!];
    if (handler === undefined) {
      response.writeHead(404).end('no');
      return;
    }
    handler(request, response);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${host}:${port}`,
    port,
    hits,
    finished,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

async function failureOf(promise: Promise<unknown>): Promise<SafeFetchError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(SafeFetchError);
    return error as SafeFetchError;
  }
  throw new Error('expected a SafeFetchError');
}

const open: SafeFetchOptions = { allowPrivate: true, maxBytes: 1024 * 1024, timeoutMs: 2_000 };
const guarded: SafeFetchOptions = { ...open, allowPrivate: false };

describe('safeFetch', () => {
  let server: LoopbackServer;
  let redirectCount = 0;

  beforeAll(async () => {
    server = await startServer({
      '/image.png': (_request, response) => response.writeHead(200, { 'content-type': 'image/png' }).end(PNG),
      '/missing': (_request, response) => response.writeHead(404).end('gone'),
      '/to-file': (_request, response) => response.writeHead(302, { location: 'file:///etc/passwd' }).end(),
      '/to-ftp': (_request, response) => response.writeHead(301, { location: 'ftp://example.com/x.png' }).end(),
      '/relative': (_request, response) => response.writeHead(307, { location: '/image.png' }).end(),
      '/no-location': (_request, response) => response.writeHead(302).end(),
      '/chain': (request, response) => {
        redirectCount += 1;
        const remaining = Number(new URL(request.url!, 'http://x').searchParams.get('n'));
        response.writeHead(302, { location: remaining <= 1 ? '/image.png' : `/chain?n=${remaining - 1}` }).end();
      },
      '/declared-huge': (_request, response) => {
        response.writeHead(200, { 'content-type': 'image/png', 'content-length': String(50 * 1024 * 1024) });
        response.write(PNG);
        // Never finishes: the client must refuse on the header alone.
      },
      '/stream-huge': (_request, response) => {
        // Chunked (no Content-Length): 4 MB in 16 KB pieces, written as fast as the client reads.
        response.writeHead(200, { 'content-type': 'image/png' });
        const piece = Buffer.alloc(16 * 1024, 1);
        let sent = 0;
        const pump = (): void => {
          while (sent < 256) {
            sent += 1;
            if (!response.write(piece)) {
              response.once('drain', pump);
              return;
            }
          }
          response.end();
        };
        response.on('close', () => {
          sent = Number.POSITIVE_INFINITY;
        });
        pump();
      },
      '/exact': (_request, response) => response.writeHead(200).end(Buffer.alloc(1000, 7)),
      '/hang': () => undefined,
      '/stall-body': (_request, response) => {
        response.writeHead(200, { 'content-type': 'image/png' });
        response.write(PNG);
      },
      '/cut-off': (_request, response) => {
        response.writeHead(200, { 'content-type': 'image/png', 'content-length': '1000' });
        response.write(PNG);
        setTimeout(() => response.socket?.destroy(), 20);
      },
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('fetches bytes and content type from an allowed address', async () => {
    const result = await safeFetch(`${server.origin}/image.png`, open);
    expect(result.bytes.equals(PNG)).toBe(true);
    expect(result.contentType).toBe('image/png');
    expect(result.url).toBe(`${server.origin}/image.png`);
  });

  describe('schemes', () => {
    it.each(['file:///etc/passwd', 'ftp://example.com/a.png', 'data:image/png;base64,iVBORw0KGgo=', 'javascript:alert(1)', 'gopher://127.0.0.1:70/'])('refuses %s', async (url) => {
      const error = await failureOf(safeFetch(url, open));
      expect(error.kind).toBe('scheme');
      expect(error.message).toMatch(/only http and https/);
    });

    it('refuses a string that is not an absolute URL', async () => {
      expect((await failureOf(safeFetch('/image.png', open))).kind).toBe('invalid-url');
      expect((await failureOf(safeFetch('not a url', open))).kind).toBe('invalid-url');
    });
  });

  describe('private and loopback addresses (allowPrivate: false)', () => {
    it.each([
      ['an IPv4 loopback literal', (port: number) => `http://127.0.0.1:${port}/image.png`],
      ['the decimal form of 127.0.0.1', (port: number) => `http://2130706433:${port}/image.png`],
      ['the hex form of 127.0.0.1', (port: number) => `http://0x7f.1:${port}/image.png`],
      ['an IPv6 loopback literal', (port: number) => `http://[::1]:${port}/image.png`],
      ['an IPv4-mapped loopback literal', (port: number) => `http://[::ffff:127.0.0.1]:${port}/image.png`],
      ['0.0.0.0', (port: number) => `http://0.0.0.0:${port}/image.png`],
      ['localhost (resolves to loopback)', (port: number) => `http://localhost:${port}/image.png`],
    ])('refuses %s without connecting', async (_name, urlOf) => {
      const before = server.hits.length;
      const error = await failureOf(safeFetch(urlOf(server.port), guarded));
      expect(error.kind).toBe('blocked-address');
      expect(error.message).toMatch(/non-public address/);
      expect(server.hits.length).toBe(before);
    });

    it('refuses a host name when any of its addresses is private', async () => {
      const resolveHost = async () => [
        { address: '93.184.216.34', family: 4 as const },
        { address: '10.0.0.7', family: 4 as const },
      ];
      const error = await failureOf(safeFetch('http://mixed.example/image.png', { ...guarded, resolveHost }));
      expect(error.kind).toBe('blocked-address');
      expect(error.detail).toBe('10.0.0.7');
      expect(error.message).toContain('"mixed.example" resolves to 10.0.0.7');
    });

    it('reports a name that does not resolve', async () => {
      const resolveHost = async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
      };
      expect((await failureOf(safeFetch('http://nowhere.example/x.png', { ...guarded, resolveHost }))).kind).toBe('dns');
      expect((await failureOf(safeFetch('http://empty.example/x.png', { ...guarded, resolveHost: async () => [] }))).kind).toBe('dns');
    });
  });

  describe('DNS pinning', () => {
    it('resolves once per hop and connects to the checked address, keeping the Host header', async () => {
      const answers = [{ address: '127.0.0.1', family: 4 as const }];
      let calls = 0;
      const resolveHost = async (hostname: string) => {
        calls += 1;
        expect(hostname).toBe('images.example');
        // A rebinding resolver would answer differently the second time; there is no second time.
        return calls === 1 ? answers : [{ address: '10.255.255.1', family: 4 as const }];
      };
      const before = server.hits.length;
      const result = await safeFetch(`http://images.example:${server.port}/image.png`, {
        ...guarded,
        resolveHost,
        isAllowedAddress: (address) => address === '127.0.0.1',
      });
      expect(result.bytes.equals(PNG)).toBe(true);
      expect(calls).toBe(1);
      expect(server.hits[before]).toEqual({ path: '/image.png', host: `images.example:${server.port}` });
    });
  });

  describe('redirects', () => {
    it('follows a relative redirect', async () => {
      const result = await safeFetch(`${server.origin}/relative`, open);
      expect(result.bytes.equals(PNG)).toBe(true);
      expect(result.url).toBe(`${server.origin}/image.png`);
    });

    it('follows up to 3 redirects and refuses the 4th', async () => {
      redirectCount = 0;
      expect((await safeFetch(`${server.origin}/chain?n=3`, open)).bytes.equals(PNG)).toBe(true);
      expect(redirectCount).toBe(3);
      const error = await failureOf(safeFetch(`${server.origin}/chain?n=4`, open));
      expect(error.kind).toBe('too-many-redirects');
      expect(error.message).toBe('more than 3 redirects');
    });

    it('re-checks the scheme of each redirect target', async () => {
      expect((await failureOf(safeFetch(`${server.origin}/to-file`, open))).kind).toBe('scheme');
      expect((await failureOf(safeFetch(`${server.origin}/to-ftp`, open))).kind).toBe('scheme');
    });

    it('re-checks the address of each redirect target', async () => {
      const other = await startServer({ '/image.png': (_request, response) => response.writeHead(200).end(PNG) }, '127.0.0.2').catch(() => undefined);
      const port = other?.port ?? 9;
      const redirecting = await startServer({ '/go': (_request, response) => response.writeHead(302, { location: `http://127.0.0.2:${port}/image.png` }).end() });
      try {
        const policy = { ...guarded, isAllowedAddress: (address: string) => address === '127.0.0.1' };
        const error = await failureOf(safeFetch(`${redirecting.origin}/go`, policy));
        expect(error.kind).toBe('blocked-address');
        expect(error.detail).toBe('127.0.0.2');
        expect(error.url).toBe(`http://127.0.0.2:${port}/image.png`);
        expect(redirecting.hits.length).toBe(1);
        expect(other?.hits.length ?? 0).toBe(0);
        // The same chain with private addresses allowed reaches the target.
        if (other !== undefined) expect((await safeFetch(`${redirecting.origin}/go`, open)).bytes.equals(PNG)).toBe(true);
      } finally {
        await redirecting.close();
        await other?.close();
      }
    });

    it('reports a redirect without a Location', async () => {
      expect((await failureOf(safeFetch(`${server.origin}/no-location`, open))).kind).toBe('redirect');
    });
  });

  describe('limits', () => {
    it('refuses a declared Content-Length over the limit before reading the body', async () => {
      const error = await failureOf(safeFetch(`${server.origin}/declared-huge`, { ...open, maxBytes: 1024 }));
      expect(error.kind).toBe('too-large');
      expect(error.detail).toBe(1024);
      expect(error.message).toBe('the body is larger than the limit of 1024 bytes');
    });

    it('aborts a streamed body as soon as it passes the limit', async () => {
      const started = Date.now();
      const error = await failureOf(safeFetch(`${server.origin}/stream-huge`, { ...open, maxBytes: 64 * 1024 }));
      expect(error.kind).toBe('too-large');
      expect(Date.now() - started).toBeLessThan(1_500);
      // The connection was torn down: the server never got to finish its 4 MB.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(server.finished.get('/stream-huge')).toBe(false);
    });

    it('accepts a body of exactly the limit', async () => {
      expect((await safeFetch(`${server.origin}/exact`, { ...open, maxBytes: 1000 })).bytes.length).toBe(1000);
      expect((await failureOf(safeFetch(`${server.origin}/exact`, { ...open, maxBytes: 999 }))).kind).toBe('too-large');
    });

    it('times out when the server never answers', async () => {
      const started = Date.now();
      const error = await failureOf(safeFetch(`${server.origin}/hang`, { ...open, timeoutMs: 200 }));
      expect(error.kind).toBe('timeout');
      expect(error.message).toBe('no complete answer within 200 ms');
      expect(Date.now() - started).toBeLessThan(1_500);
    });

    it('times out when the body stalls (the deadline covers the body too)', async () => {
      expect((await failureOf(safeFetch(`${server.origin}/stall-body`, { ...open, timeoutMs: 200 }))).kind).toBe('timeout');
    });
  });

  describe('failures', () => {
    it('reports a non-2xx answer with its status', async () => {
      const error = await failureOf(safeFetch(`${server.origin}/missing`, open));
      expect(error.kind).toBe('http-status');
      expect(error.detail).toBe(404);
      expect(error.message).toBe('the server answered HTTP 404');
    });

    it('reports a refused connection', async () => {
      const closed = await startServer({});
      const origin = closed.origin;
      await closed.close();
      const error = await failureOf(safeFetch(`${origin}/image.png`, open));
      expect(error.kind).toBe('network');
      expect(error.message).toContain('ECONNREFUSED');
    });

    it('reports a body cut off before its Content-Length', async () => {
      expect((await failureOf(safeFetch(`${server.origin}/cut-off`, open))).kind).toBe('network');
    });

    it("rejects with the caller's abort reason, not a fetch error", async () => {
      const controller = new AbortController();
      const reason = new Error('client went away');
      const pending = safeFetch(`${server.origin}/hang`, { ...open, timeoutMs: 5_000, signal: controller.signal });
      setTimeout(() => controller.abort(reason), 50);
      await expect(pending).rejects.toBe(reason);
      const aborted = AbortSignal.abort(reason);
      await expect(safeFetch(`${server.origin}/image.png`, { ...open, signal: aborted })).rejects.toBe(reason);
    });
  });
});
