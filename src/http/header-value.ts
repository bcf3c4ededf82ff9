import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

/**
 * Header hygiene (issue 14): every response head igw writes goes through `writeHeadSafely`, and
 * every value taken from a client or an upstream (request ids, origins, Retry-After, filenames)
 * passes `echoableHeaderValue` before it is put there. Node's `writeHead` throws on a value with
 * a control character or a code point above U+00FF; a JSON string or an upstream header can carry
 * either, so an unchecked echo would turn one crafted request into a thrown error on every path
 * that writes the same headers again, the error path included.
 */

/** Longest client- or upstream-supplied value igw repeats in a header. */
export const MAX_ECHOED_HEADER_CHARS = 256;

/** Visible ASCII and inner spaces: what any HTTP client, proxy and log line handles as is. */
const ECHOABLE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/** An unpaired UTF-16 surrogate (String.prototype.toWellFormed is ES2024, beyond the project's lib). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** A header name is an RFC 9110 token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Node's own rule for a header value (tab, visible ASCII, obs-text): anything else makes writeHead throw. */
const NODE_VALID_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * The value when it is safe to repeat in a response header (a string of visible ASCII, at most
 * `maxChars` long, non-empty); undefined otherwise, so the caller drops it or uses its own.
 */
export function echoableHeaderValue(value: unknown, maxChars = MAX_ECHOED_HEADER_CHARS): string | undefined {
  if (typeof value !== 'string' || value.length > maxChars) return undefined;
  return ECHOABLE.test(value) ? value : undefined;
}

/**
 * The headers Node will accept, the others left out. The last line of defence under the echo
 * checks: a value that slipped through is dropped, never allowed to throw.
 */
export function validHeaders(headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  const valid: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || !TOKEN.test(name)) continue;
    const values = Array.isArray(value) ? value : [value];
    if (values.every((item) => NODE_VALID_VALUE.test(String(item)))) valid[name] = value;
  }
  return valid;
}

/**
 * response.writeHead that cannot throw on a header: Node validates every header anyway, so the
 * usual head is written as is, and only a head Node refused is written again with the valid
 * headers (see validHeaders). A value dropped here is one an echo check upstream of it missed.
 */
export function writeHeadSafely(response: ServerResponse, status: number, headers: OutgoingHttpHeaders): void {
  try {
    response.writeHead(status, headers);
  } catch (error) {
    if (response.headersSent) throw error;
    response.writeHead(status, validHeaders(headers));
  }
}

/**
 * writeHeadSafely for the usual head: the exchange's headers, then the answer's own (content type,
 * length, ...), handed to writeHead as one flat name/value list, so no merged header object is
 * built per response (issue 18 item 3). The head is the one `{ ...headers, ...own }` would give:
 * a name already in `headers` keeps its place and takes the answer's value.
 */
export function writeHeadWith(response: ServerResponse, status: number, headers: Readonly<Record<string, string>>, own: ReadonlyArray<string | number>): void {
  const flat: Array<string | number> = [];
  let placed = 0;
  for (const name in headers) {
    let at = 0;
    while (at < own.length && own[at] !== name) at += 2;
    if (at >= own.length) flat.push(name, headers[name]!);
    else {
      flat.push(name, own[at + 1]!);
      placed |= 1 << (at >> 1);
    }
  }
  for (let at = 0; at < own.length; at += 2) if ((placed & (1 << (at >> 1))) === 0) flat.push(own[at]!, own[at + 1]!);
  try {
    response.writeHead(status, flat as unknown as OutgoingHttpHeaders);
  } catch (error) {
    if (response.headersSent) throw error;
    const merged: OutgoingHttpHeaders = {};
    for (let at = 0; at < flat.length; at += 2) merged[flat[at] as string] = flat[at + 1];
    response.writeHead(status, validHeaders(merged));
  }
}

/**
 * `content-disposition: attachment` for a client-chosen file name (RFC 8187 encoding). A name with
 * a lone surrogate (valid in JSON, not in UTF-8) would make encodeURIComponent throw: it is made
 * well-formed first.
 */
export function attachmentDisposition(filename: string): string {
  return `attachment; filename*=UTF-8''${encodeURIComponent(filename.replace(LONE_SURROGATE, '\uFFFD'))}`;
}

/**
 * A comma-separated list of client-supplied names for one header (`igw-ignored-params`): only the
 * names that are sane header values, as many as fit in `maxChars`; a longer list ends in ", ...".
 * Undefined when nothing is left to show.
 */
export function echoableList(items: readonly string[], maxChars = 1024): string | undefined {
  let value = '';
  for (const item of items) {
    if (echoableHeaderValue(item, maxChars) === undefined) continue;
    const next = value === '' ? item : `${value}, ${item}`;
    if (next.length > maxChars) return value === '' ? undefined : `${value}, ...`;
    value = next;
  }
  return value === '' ? undefined : value;
}
