import { isIP } from 'node:net';
import { classifyAddress, stripBrackets } from '../net/address-policy.js';
import { checkedFetch, systemResolve, type CheckedFetch, type ResolveHost } from '../net/checked-connect.js';

/** A URL a client handed igw that the SSRF policy refuses (DESIGN §6). */
export class RefusedMcpUrl extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefusedMcpUrl';
  }
}

/**
 * Checks a client-given MCP server URL against the SSRF policy (DESIGN §6, the policy of
 * net/address-policy.ts): http(s) only, and unless `allowPrivate` every address the host
 * resolves to must be public. Throws RefusedMcpUrl naming why.
 */
export async function checkMcpUrl(text: string, allowPrivate: boolean, resolve: ResolveHost = systemResolve): Promise<URL> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RefusedMcpUrl('is not a valid absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RefusedMcpUrl(`uses the scheme "${url.protocol.replace(/:$/, '')}" (only http and https)`);
  if (allowPrivate) return url;
  const host = stripBrackets(url.hostname);
  let addresses: string[];
  if (isIP(host) !== 0) addresses = [host];
  else {
    try {
      addresses = (await resolve(host)).map((answer) => answer.address);
    } catch {
      throw new RefusedMcpUrl(`names a host ("${host}") that does not resolve`);
    }
  }
  for (const address of addresses) {
    const verdict = classifyAddress(address);
    if (!verdict.allowed) throw new RefusedMcpUrl(`reaches ${address}, a private, loopback or otherwise non-public address (${verdict.range}); server.allow_private_urls allows it`);
  }
  return url;
}

/**
 * The fetch the MCP client uses for a client-given server: every request's URL is checked again
 * (the transport may be pointed at another endpoint by the server; a refusal names why), redirects
 * are not followed, so the server cannot bounce igw to an internal address, and every connection
 * resolves and checks its host in one step (net/checked-connect.ts), so a DNS answer that changes
 * after the check cannot move the connection to an internal address (DNS rebinding). `close`
 * releases the pool's keep-alive sockets with the request.
 */
export function guardedFetch(allowPrivate: boolean, resolve: ResolveHost = systemResolve): CheckedFetch {
  const checked = checkedFetch(allowPrivate, resolve);
  return {
    fetch: async (input, init) => {
      const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      await checkMcpUrl(href, allowPrivate, resolve);
      return checked.fetch(input, { ...init, redirect: 'error' });
    },
    close: () => checked.close(),
  };
}
