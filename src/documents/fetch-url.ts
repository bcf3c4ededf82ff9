import path from 'node:path';
import { GatewayError } from '../errors/gateway-error.js';
import { safeFetch, SafeFetchError, type SafeFetchOptions } from '../net/safe-fetch.js';

/**
 * `POST /v1/vector_stores/{id}/sources/url`: the page or file behind a client's URL, fetched
 * through the SSRF-guarded fetcher (net/safe-fetch: http(s) only, every address checked —
 * redirect targets too — private and loopback refused unless `server.allow_private_urls`, one
 * deadline, size counted while streaming). The bytes then go to `extractDocument`, which takes
 * an HTML page's article text.
 */

export interface FetchUrlOptions {
  /** Largest body accepted, in bytes. */
  maxBytes: number;
  /** One deadline for the whole fetch (redirects and body included). */
  timeoutMs: number;
  /** server.allow_private_urls */
  allowPrivate: boolean;
  /** The caller's signal: aborting rejects with its reason. */
  signal?: AbortSignal;
  /** Name resolution override (tests); default: the system resolver. */
  resolveHost?: SafeFetchOptions['resolveHost'];
}

export interface FetchedDocument {
  bytes: Buffer;
  /** A name for the stored file: the URL's last path segment, else its host. */
  filename: string;
  /** The Content-Type the server sent, if any. */
  mimeType?: string;
  /** The URL the body came from, after redirects. */
  finalUrl: string;
}

/** What we ask for: documents we can read first, anything else last (types are sniffed anyway). */
const ACCEPT = 'text/html, application/xhtml+xml, application/pdf, text/markdown, text/plain;q=0.9, application/json;q=0.9, text/csv;q=0.9, */*;q=0.5';

/** The field the errors name: the sources/url body's `url`. */
const FIELD = 'url';

export async function fetchUrlDocument(url: string, options: FetchUrlOptions): Promise<FetchedDocument> {
  let fetched;
  try {
    fetched = await safeFetch(url, {
      allowPrivate: options.allowPrivate,
      maxBytes: options.maxBytes,
      timeoutMs: options.timeoutMs,
      accept: ACCEPT,
      userAgent: 'igw (knowledge base ingestion)',
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.resolveHost === undefined ? {} : { resolveHost: options.resolveHost }),
    });
  } catch (error) {
    // Anything else is the caller's abort reason: passed on as is.
    if (!(error instanceof SafeFetchError)) throw error;
    throw fetchFailure(error, options);
  }
  const mimeType = fetched.contentType?.trim();
  return {
    bytes: fetched.bytes,
    filename: filenameOf(fetched.url),
    ...(mimeType === undefined || mimeType === '' ? {} : { mimeType }),
    finalUrl: fetched.url,
  };
}

/** `https://host/docs/guide.pdf?x=1` → `guide.pdf`; `https://host/` → `host`. */
export function filenameOf(url: string): string {
  const parsed = new URL(url);
  const segments = parsed.pathname.split('/').filter((segment) => segment !== '');
  let name = segments.at(-1) ?? '';
  try {
    name = decodeURIComponent(name);
  } catch {
    // A malformed escape: keep the segment as written.
  }
  // No path separators or control characters in a stored name.
  name = path.basename(name.replace(/[\\/\u0000-\u001f]/g, '_')).slice(0, 200);
  return name === '' || name === '.' || name === '..' ? parsed.hostname : name;
}

/** The client's URL could not be used: a 400 naming `url` that says what to do. */
function fetchFailure(error: SafeFetchError, options: FetchUrlOptions): GatewayError {
  const details = { field: FIELD, reason: error.kind };
  switch (error.kind) {
    case 'invalid-url':
    case 'scheme':
      return new GatewayError('VALIDATION_4005', `The URL cannot be fetched: ${error.message}; send an absolute http(s) URL.`, details, { cause: error });
    case 'blocked-address':
      return new GatewayError(
        'VALIDATION_4005',
        `The URL cannot be fetched: ${error.message}. igw does not fetch private or loopback addresses unless server.allow_private_urls is true; upload the file instead.`,
        details,
        { cause: error },
      );
    case 'too-large':
      return new GatewayError('VALIDATION_4005', `The document at the URL is larger than the limit of ${options.maxBytes} bytes; upload a smaller file or split it.`, { ...details, limit_bytes: options.maxBytes }, { cause: error });
    case 'timeout':
      return new GatewayError('VALIDATION_4005', `The URL did not deliver the document within ${options.timeoutMs} ms; try again later or upload the file instead.`, { ...details, limit_ms: options.timeoutMs }, { cause: error });
    default:
      return new GatewayError('VALIDATION_4005', `Could not fetch the URL: ${error.message}; check that it is reachable, or upload the file instead.`, details, { cause: error });
  }
}
