import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractDocument } from '../../../src/documents/extract.js';
import { fetchUrlDocument, filenameOf, type FetchUrlOptions } from '../../../src/documents/fetch-url.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';

/**
 * A loopback server only (no test touches the internet): positive cases use allowPrivate: true.
 * Redirect targets are re-checked by net/safe-fetch itself (its own tests cover that).
 */

const paragraph = 'Retrieval works best on clean article text without menus, footers or scripts around it. '.repeat(5);
const ARTICLE = `<!doctype html><html><head><title>Guide | Site</title><meta charset="utf-8"></head><body>
<nav><a href="/">Home</a><a href="/blog">Blog</a><a href="/contact">Contact us</a></nav>
<article><h1>Indexing guide</h1><p>${paragraph}</p><p>${paragraph}</p><p>${paragraph}</p></article>
<footer>Footer boilerplate 2026</footer><script>track()</script></body></html>`;

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

const routes: Record<string, Handler> = {
  '/docs/guide': (_request, response) => response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE),
  '/moved': (_request, response) => response.writeHead(302, { location: '/docs/guide' }).end(),
  '/big.txt': (_request, response) => {
    // No Content-Length: the limit is enforced while the body streams.
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.write(Buffer.alloc(4096, 'a'));
    response.end(Buffer.alloc(4096, 'b'));
  },
  '/slow': (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.write('start…');
    // Never finishes within the test's deadline; the socket is destroyed on close.
  },
  '/notes%20v2.md': (_request, response) => response.writeHead(200).end('# Notes\n\ntext'),
};

let server: Server;
let origin: string;
const sockets = new Set<Socket>();
const userAgents: Array<string | undefined> = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    userAgents.push(request.headers['user-agent']);
    const handler = routes[(request.url ?? '/').split('?')[0]!];
    if (handler === undefined) response.writeHead(404).end('not here');
    else handler(request, response);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const allowed: FetchUrlOptions = { maxBytes: 1_000_000, timeoutMs: 5000, allowPrivate: true };

async function refusal(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(() => undefined, (reason: unknown) => reason);
  expect(error).toBeInstanceOf(GatewayError);
  const gatewayError = error as GatewayError;
  expect(gatewayError.code).toBe('VALIDATION_4005');
  expect(gatewayError.status).toBe(400);
  expect(gatewayError.details?.field).toBe('url');
  return gatewayError;
}

describe('fetchUrlDocument', () => {
  it('fetches a page on an allowed loopback address; extraction gives its article text', async () => {
    const fetched = await fetchUrlDocument(`${origin}/docs/guide`, allowed);
    expect(fetched).toMatchObject({ filename: 'guide', mimeType: 'text/html; charset=utf-8', finalUrl: `${origin}/docs/guide` });
    expect(fetched.bytes.toString('utf8')).toBe(ARTICLE);
    const document = await extractDocument(fetched);
    expect(document.format).toBe('html');
    expect(document.text).toContain('Retrieval works best on clean article text');
    expect(document.text).not.toMatch(/Footer boilerplate|Contact us|track\(\)/);
    // Site owners see what fetched their page.
    expect(userAgents.at(-1)).toBe('igw (knowledge base ingestion)');
  });

  it('follows redirects and reports the final URL', async () => {
    const fetched = await fetchUrlDocument(`${origin}/moved`, allowed);
    expect(fetched.finalUrl).toBe(`${origin}/docs/guide`);
    expect(fetched.filename).toBe('guide');
  });

  it('names the file after the decoded last path segment', async () => {
    const fetched = await fetchUrlDocument(`${origin}/notes%20v2.md`, allowed);
    expect(fetched.filename).toBe('notes v2.md');
    expect(fetched.mimeType).toBeUndefined();
    expect((await extractDocument(fetched)).format).toBe('markdown');
  });

  it.each<[string, string]>([
    ['https://example.com/a/b/report.pdf?download=1', 'report.pdf'],
    ['https://example.com/', 'example.com'],
    ['https://example.com/a/..%2F..%2Fetc%2Fpasswd', '.._.._etc_passwd'],
    ['https://example.com/%E0%A4%A', '%E0%A4%A'],
  ])('filenameOf(%s) = %s', (url, name) => {
    expect(filenameOf(url)).toBe(name);
  });

  it('refuses a loopback address unless private addresses are allowed', async () => {
    const error = await refusal(fetchUrlDocument(`${origin}/docs/guide`, { ...allowed, allowPrivate: false }));
    expect(error.details?.reason).toBe('blocked-address');
    expect(error.message).toMatch(/server\.allow_private_urls/);
  });

  it('refuses a host name that resolves to a private address', async () => {
    const error = await refusal(
      fetchUrlDocument('http://intranet.example/wiki', { ...allowed, allowPrivate: false, resolveHost: async () => [{ address: '10.1.2.3', family: 4 }] }),
    );
    expect(error.details?.reason).toBe('blocked-address');
  });

  it.each<[string, string]>([
    ['ftp', 'ftp://example.com/file.txt'],
    ['file', 'file:///etc/passwd'],
    ['javascript', 'javascript:alert(1)'],
    ['no scheme', 'example.com/page'],
  ])('refuses a %s URL', async (_name, url) => {
    const error = await refusal(fetchUrlDocument(url, allowed));
    expect(['scheme', 'invalid-url']).toContain(error.details?.reason);
    expect(error.message).toMatch(/http\(s\)/);
  });

  it('refuses a body over the size limit', async () => {
    const error = await refusal(fetchUrlDocument(`${origin}/big.txt`, { ...allowed, maxBytes: 5000 }));
    expect(error.details).toMatchObject({ reason: 'too-large', limit_bytes: 5000 });
  });

  it('refuses a server too slow for the deadline', async () => {
    const started = Date.now();
    const error = await refusal(fetchUrlDocument(`${origin}/slow`, { ...allowed, timeoutMs: 300 }));
    expect(error.details).toMatchObject({ reason: 'timeout', limit_ms: 300 });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('refuses a page that answers with an error status', async () => {
    const error = await refusal(fetchUrlDocument(`${origin}/missing`, allowed));
    expect(error.details?.reason).toBe('http-status');
    expect(error.message).toMatch(/404/);
  });
});
