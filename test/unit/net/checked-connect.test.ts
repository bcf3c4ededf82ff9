import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { guardedFetch } from '../../../src/mcp/guarded-fetch.js';
import { checkedFetch, type ResolveHost } from '../../../src/net/checked-connect.js';

/** A loopback server that counts what reaches it. */
async function loopbackServer(): Promise<{ port: number; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server: Server = createServer((_request, response) => {
    hits += 1;
    response.end('reached');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hits: () => hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** DNS that answers a public address first and the loopback after (a rebinding attacker's name server). */
function rebindingResolver(): { resolve: ResolveHost; calls: () => number } {
  let calls = 0;
  return {
    resolve: async () => (calls++ === 0 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.1', family: 4 }]),
    calls: () => calls,
  };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('connections that check the address they connect to (DESIGN §6)', () => {
  it('a client-given MCP URL whose DNS answer turns private after the check never reaches the private address', async () => {
    const server = await loopbackServer();
    cleanups.push(server.close);
    const dns = rebindingResolver();
    const guarded = guardedFetch(false, dns.resolve);
    cleanups.push(guarded.close);
    // The URL check sees the public answer; the connection resolves again and is refused.
    const failure = await guarded.fetch(`http://mcp.rebind.test:${server.port}/mcp`).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect(String((failure as Error & { cause?: unknown }).cause)).toMatch(/127\.0\.0\.1, a private, loopback or otherwise non-public address \(loopback\)/);
    expect(dns.calls()).toBe(2);
    expect(server.hits()).toBe(0);
  });

  it('refuses a host with any private address among its answers, before a byte is sent', async () => {
    const server = await loopbackServer();
    cleanups.push(server.close);
    // The loopback first: even a broken check would then reach only the test's own server.
    const mixed: ResolveHost = async () => [
      { address: '127.0.0.1', family: 4 },
      { address: '93.184.216.34', family: 4 },
    ];
    const checked = checkedFetch(false, mixed);
    cleanups.push(checked.close);
    await expect(checked.fetch(`http://mixed.test:${server.port}/`)).rejects.toMatchObject({ cause: { code: 'EBLOCKEDADDRESS', address: '127.0.0.1', range: 'loopback' } });
    expect(server.hits()).toBe(0);
  });

  it('connects to the address it resolved when private addresses are allowed (server.allow_private_urls)', async () => {
    const server = await loopbackServer();
    cleanups.push(server.close);
    const guarded = guardedFetch(true, async () => [{ address: '127.0.0.1', family: 4 }]);
    cleanups.push(guarded.close);
    const response = await guarded.fetch(`http://mcp.local.test:${server.port}/mcp`);
    expect(await response.text()).toBe('reached');
    expect(server.hits()).toBe(1);
  });

  it('a redirect from the server is an error, not followed', async () => {
    let hits = 0;
    const redirecting = createServer((_request, response) => {
      hits += 1;
      response.writeHead(302, { location: 'http://127.0.0.1:9/' }).end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => redirecting.close(() => resolve())));
    const guarded = guardedFetch(true, async () => [{ address: '127.0.0.1', family: 4 }]);
    cleanups.push(guarded.close);
    await expect(guarded.fetch(`http://redirect.test:${(redirecting.address() as AddressInfo).port}/`)).rejects.toThrow();
    expect(hits).toBe(1);
  });
});
