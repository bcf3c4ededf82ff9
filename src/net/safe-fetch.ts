import { lookup as dnsLookup } from 'node:dns/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { classifyAddress, stripBrackets } from './address-policy.js';

/**
 * Fetches a URL that a client handed us (image URLs in chat messages; URL ingestion later),
 * guarded against server-side request forgery (DESIGN §6):
 * - only http: and https:;
 * - the host is resolved once and every address it resolves to must be public (address-policy)
 *   unless `allowPrivate`; the connection then goes to that checked address (pinned through
 *   the socket's `lookup`), so DNS cannot answer differently between the check and the connect
 *   (DNS rebinding);
 * - at most `maxRedirects` redirects, each target checked again like the first URL;
 * - one deadline for everything (DNS, connect, redirects, body);
 * - the body is counted while it streams and the request is torn down the moment it passes
 *   `maxBytes` (a Content-Length above the limit is refused before reading anything).
 *
 * Why node:http and not undici (ARCHITECTURE principle 7 keeps undici to
 * providers/http-client.ts and client/): this is not a provider call and must not share the
 * provider keep-alive pools — every fetch pins its own address on a fresh socket, which
 * node:http's per-request `lookup` option expresses directly, with no pool to outlive it.
 */

export type SafeFetchFailure =
  /** Not a parseable absolute URL. */
  | 'invalid-url'
  /** Not http: or https: (the first URL or a redirect target). */
  | 'scheme'
  /** The host is (or resolves to) an address the policy refuses. */
  | 'blocked-address'
  /** The host name does not resolve. */
  | 'dns'
  /** A redirect without a usable Location. */
  | 'redirect'
  | 'too-many-redirects'
  /** A final answer that is not 2xx. */
  | 'http-status'
  | 'too-large'
  | 'timeout'
  /** Connection refused or reset, TLS failure, … */
  | 'network';

/** A fetch that failed for a reason the caller reports to its client (it sent the URL). */
export class SafeFetchError extends Error {
  readonly kind: SafeFetchFailure;
  /** The URL being fetched when it failed (a redirect target, possibly). */
  readonly url: string;
  /** HTTP status for `http-status`; the address for `blocked-address`; the limit for `too-large` / `timeout`. */
  readonly detail: string | number | undefined;

  constructor(kind: SafeFetchFailure, message: string, url: string, detail?: string | number, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SafeFetchError';
    this.kind = kind;
    this.url = url;
    this.detail = detail;
  }
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export interface SafeFetchOptions {
  /** server.allow_private_urls: skip the address policy (the address is still pinned). */
  allowPrivate: boolean;
  /** Largest body accepted, in bytes. */
  maxBytes: number;
  /** One deadline for the whole fetch, redirects and body included. */
  timeoutMs: number;
  /** The caller's signal: aborting it rejects with `signal.reason` (like fetch). */
  signal?: AbortSignal;
  /** Redirects followed before giving up (default 3). */
  maxRedirects?: number;
  /** Sent as `Accept` (default any). */
  accept?: string;
  /** Sent as `User-Agent`, naming what igw fetches for (default `igw`). */
  userAgent?: string;
  /** Name resolution; default: the system resolver (getaddrinfo, all addresses). */
  resolveHost?: (hostname: string) => Promise<ResolvedAddress[]>;
  /** Address policy applied when `allowPrivate` is false; default: public addresses only. */
  isAllowedAddress?: (address: string) => boolean;
}

export interface SafeFetchResult {
  bytes: Buffer;
  /** The Content-Type header as sent, if any (callers that care should sniff the bytes). */
  contentType: string | undefined;
  /** The URL the body came from (after redirects). */
  url: string;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const DEFAULT_MAX_REDIRECTS = 3;

export async function safeFetch(url: string, options: SafeFetchOptions): Promise<SafeFetchResult> {
  const callerSignal = options.signal;
  callerSignal?.throwIfAborted();
  const controller = new AbortController();
  const timer = setTimeout(() => {
    controller.abort(new SafeFetchError('timeout', `no complete answer within ${options.timeoutMs} ms`, url, options.timeoutMs));
  }, options.timeoutMs);
  const onCallerAbort = (): void => controller.abort(callerSignal?.reason);
  callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
  try {
    const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
    let current = parseHttpUrl(url);
    for (let redirects = 0; ; redirects += 1) {
      const target = await abortable(pickAddress(current, options), controller.signal);
      const answer = await requestOnce(current, target, options, controller.signal);
      if (answer.kind === 'body') return { bytes: answer.bytes, contentType: answer.contentType, url: current.href };
      if (redirects >= maxRedirects) {
        throw new SafeFetchError('too-many-redirects', `more than ${maxRedirects} redirects`, current.href, maxRedirects);
      }
      let next: URL;
      try {
        next = new URL(answer.location, current);
      } catch (error) {
        throw new SafeFetchError('redirect', `redirect to an invalid URL "${answer.location.slice(0, 200)}"`, current.href, undefined, { cause: error });
      }
      current = parseHttpUrl(next.href);
    }
  } finally {
    clearTimeout(timer);
    callerSignal?.removeEventListener('abort', onCallerAbort);
  }
}

/** An absolute http(s) URL, or a SafeFetchError naming what is wrong with it. */
function parseHttpUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch (error) {
    throw new SafeFetchError('invalid-url', 'not a valid absolute URL', text.slice(0, 200), undefined, { cause: error });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SafeFetchError('scheme', `the scheme "${url.protocol.replace(/:$/, '')}" is not allowed (only http and https)`, url.href.slice(0, 200), url.protocol);
  }
  return url;
}

/** Resolves the host once and checks every address; returns the one the socket will use. */
async function pickAddress(url: URL, options: SafeFetchOptions): Promise<ResolvedAddress> {
  const host = stripBrackets(url.hostname);
  let addresses: ResolvedAddress[];
  const literal = isIP(host);
  if (literal !== 0) {
    addresses = [{ address: host, family: literal as 4 | 6 }];
  } else {
    try {
      addresses = await (options.resolveHost ?? resolveWithSystem)(host);
    } catch (error) {
      throw new SafeFetchError('dns', `the host "${host}" does not resolve`, url.href, host, { cause: error });
    }
    if (addresses.length === 0) throw new SafeFetchError('dns', `the host "${host}" does not resolve`, url.href, host);
  }
  if (!options.allowPrivate) {
    const allowed = options.isAllowedAddress ?? ((address: string) => classifyAddress(address).allowed);
    // Every answer must pass, not just the one we would use: a name that also points inside
    // the network is refused as a whole.
    for (const { address } of addresses) {
      if (!allowed(address)) {
        const range = classifyAddress(address).range;
        const what = literal !== 0 ? `the address ${address}` : `the host "${host}" resolves to ${address}, which`;
        throw new SafeFetchError('blocked-address', `${what} is a private, loopback or otherwise non-public address (${range})`, url.href, address);
      }
    }
  }
  return addresses[0]!;
}

async function resolveWithSystem(hostname: string): Promise<ResolvedAddress[]> {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true });
  return answers.map((answer) => ({ address: answer.address, family: answer.family === 6 ? 6 : 4 }));
}

type OneAnswer = { kind: 'body'; bytes: Buffer; contentType: string | undefined } | { kind: 'redirect'; location: string };

/** One GET to the pinned address; a redirect is returned (its body discarded), not followed. */
function requestOnce(url: URL, target: ResolvedAddress, options: SafeFetchOptions, signal: AbortSignal): Promise<OneAnswer> {
  return new Promise<OneAnswer>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    // The socket connects to the address we checked, whatever DNS would say now.
    const pinnedLookup = ((_hostname: string, lookupOptions: { all?: boolean }, callback: (...args: unknown[]) => void) => {
      if (lookupOptions.all === true) callback(null, [{ address: target.address, family: target.family }]);
      else callback(null, target.address, target.family);
    }) as unknown as LookupFunction;
    const transport = url.protocol === 'https:' ? https : http;
    let settled = false;
    const finish = (outcome: { answer: OneAnswer } | { error: unknown }): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if ('answer' in outcome) resolve(outcome.answer);
      else reject(outcome.error);
    };
    const request = transport.request({
      protocol: url.protocol,
      host: stripBrackets(url.hostname),
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      lookup: pinnedLookup,
      // A fresh socket per fetch: a pooled one could carry a different pinned address.
      agent: false,
      headers: {
        accept: options.accept ?? '*/*',
        // Sizes are checked on the bytes we store, so ask for them unencoded.
        'accept-encoding': 'identity',
        'user-agent': options.userAgent ?? 'igw',
        ...(url.username === '' ? {} : { authorization: `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}` }),
      },
    });
    const onAbort = (): void => {
      finish({ error: signal.reason });
      request.destroy();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    request.on('error', (error: NodeJS.ErrnoException) => {
      finish({ error: new SafeFetchError('network', `could not fetch it (${error.code ?? error.message})`, url.href, error.code, { cause: error }) });
    });
    request.on('response', (response: IncomingMessage) => {
      const status = response.statusCode ?? 0;
      if (REDIRECT_STATUSES.has(status)) {
        const location = response.headers.location;
        request.destroy();
        if (location === undefined || location === '') {
          finish({ error: new SafeFetchError('redirect', `HTTP ${status} redirect without a Location header`, url.href, status) });
        } else {
          finish({ answer: { kind: 'redirect', location } });
        }
        return;
      }
      if (status < 200 || status >= 300) {
        request.destroy();
        finish({ error: new SafeFetchError('http-status', `the server answered HTTP ${status}`, url.href, status) });
        return;
      }
      const tooLarge = (): SafeFetchError => new SafeFetchError('too-large', `the body is larger than the limit of ${options.maxBytes} bytes`, url.href, options.maxBytes);
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > options.maxBytes) {
        request.destroy();
        finish({ error: tooLarge() });
        return;
      }
      const parts: Buffer[] = [];
      let received = 0;
      response.on('data', (part: Buffer) => {
        received += part.length;
        if (received > options.maxBytes) {
          // Stop reading at once: the rest of the body is never downloaded.
          request.destroy();
          finish({ error: tooLarge() });
          return;
        }
        parts.push(part);
      });
      response.on('end', () => {
        const contentType = response.headers['content-type'];
        finish({ answer: { kind: 'body', bytes: Buffer.concat(parts, received), contentType } });
      });
      response.on('error', (error: NodeJS.ErrnoException) => {
        finish({ error: new SafeFetchError('network', `the body was cut off (${error.code ?? error.message})`, url.href, error.code, { cause: error }) });
      });
      response.on('close', () => {
        // Closed before 'end' (the server reset or closed mid-body): no-op when it completed.
        if (!response.complete) finish({ error: new SafeFetchError('network', 'the body was cut off', url.href) });
      });
    });
    request.end();
  });
}

/** Races a promise that cannot itself be cancelled (name resolution) against the signal. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
