import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import { classifyAddress } from './address-policy.js';

/** A host's addresses, as `dns.lookup(host, { all: true })` gives them. */
export type ResolveHost = (host: string) => Promise<Array<{ address: string; family: number }>>;

/** The system resolver (getaddrinfo, as sockets use by default). */
export const systemResolve: ResolveHost = (host) => dnsLookup(host, { all: true, verbatim: true });

/** A connection refused by the SSRF policy at connect time (DESIGN §6). */
export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';

  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
  ) {
    super(`${host} resolves to ${address}, a private, loopback or otherwise non-public address (${range})`);
    this.name = 'BlockedAddressError';
  }
}

/**
 * A socket `lookup` that resolves the host and answers only when every address it resolves to is
 * public (unless `allowPrivate`): the check and the address the socket connects to come from one
 * resolution, so DNS cannot answer one thing to a check and another to the connect (DNS
 * rebinding). Sockets never look up an IP literal: callers check those from the URL.
 */
export function checkedLookup(allowPrivate: boolean, resolve: ResolveHost = systemResolve): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    resolve(hostname).then(
      (answers) => {
        if (!allowPrivate) {
          for (const { address } of answers) {
            const verdict = classifyAddress(address);
            if (!verdict.allowed) return callback(new BlockedAddressError(hostname, address, verdict.range));
          }
        }
        if (answers.length === 0) return callback(Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' }));
        if (options.all === true) callback(null, answers);
        else callback(null, answers[0]!.address, answers[0]!.family);
      },
      (error: unknown) => callback(error),
    );
  }) as unknown as LookupFunction;
}

/** A fetch whose connections are checked as checkedLookup says, and the pool to close with its owner. */
export interface CheckedFetch {
  fetch: typeof fetch;
  close(): Promise<void>;
}

/**
 * A WHATWG fetch (undici's) over a pool of its own whose every connection goes through
 * checkedLookup: keep-alive sockets stay on the address that was checked when they opened.
 */
export function checkedFetch(allowPrivate: boolean, resolve?: ResolveHost): CheckedFetch {
  const agent = new Agent({ connect: { lookup: checkedLookup(allowPrivate, resolve) } });
  return {
    fetch: ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
      undiciFetch(input as Parameters<typeof undiciFetch>[0], { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher: agent })) as unknown as typeof fetch,
    close: () => agent.close(),
  };
}
