import { GatewayError } from '../../errors/gateway-error.js';
import { safeFetch, SafeFetchError, type SafeFetchOptions } from '../../net/safe-fetch.js';
import type { ChatMessage, ChatRequest, ContentPart, ImagePart } from '../../translate/chat/types.js';

/**
 * Spec (chat completions, content parts): "url is a public URL or a base64 data URI; URLs are
 * fetched and re-encoded server side". Every image then reaches the provider as a data URI, so
 * providers never fetch client-chosen URLs themselves (some cannot, e.g. Ollama's OpenAI
 * endpoint takes base64 only) and the SSRF guard lives in one place (net/safe-fetch).
 */

export interface InlineImageOptions {
  /** server.allow_private_urls */
  allowPrivate: boolean;
  /** server.image_fetch_max_bytes: per image, for fetched images and data URIs alike. */
  maxBytes: number;
  /** server.image_fetch_timeout_ms: per fetched image (redirects and body included). */
  timeoutMs: number;
  /** The call's signal: the client going away stops every fetch (rejects with its reason). */
  signal: AbortSignal;
  /** Name resolution override (tests); default: the system resolver. */
  resolveHost?: SafeFetchOptions['resolveHost'];
}

/** Images fetched at the same time, per request. */
const FETCH_CONCURRENCY = 4;

export type ImageMime = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

/** Bytes needed to recognise every supported type (WebP: `RIFF` size `WEBP`). */
const SNIFF_BYTES = 12;

/** The image type from its magic number, or undefined when it is none of the supported ones. */
export function sniffImageType(bytes: Uint8Array): ImageMime | undefined {
  const starts = (signature: number[], offset = 0): boolean => signature.every((byte, index) => bytes[offset + index] === byte);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (starts([0x47, 0x49, 0x46, 0x38]) && (bytes[4] === 0x37 || bytes[4] === 0x39) && bytes[5] === 0x61) return 'image/gif';
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  return undefined;
}

interface ImageSlot {
  messageIndex: number;
  partIndex: number;
  part: ImagePart;
  field: string;
}

/**
 * Returns the request with every `image_url` part as a `data:<mime>;base64,…` URI: http(s)
 * URLs are fetched (through safeFetch, at most 4 at a time) and their type sniffed from the
 * bytes; data URIs are checked (base64, supported type, size) and passed on, relabelled with
 * the sniffed type when the declared one is wrong; any other scheme is refused. Problems are
 * the client's (it sent the URL): VALIDATION_4005 naming `messages[i].content[j].image_url.url`.
 * The input is not mutated; without image parts it is returned as is.
 */
export async function inlineImageUrls(request: ChatRequest, options: InlineImageOptions): Promise<ChatRequest> {
  const slots = imageSlots(request.messages);
  if (slots.length === 0) return request;
  options.signal.throwIfAborted();

  const replacements = new Map<ImageSlot, string>();
  const fetches: Array<{ slot: ImageSlot; url: string }> = [];
  for (const slot of slots) {
    const url = slot.part.image_url.url;
    const scheme = schemeOf(url);
    if (scheme === 'data') replacements.set(slot, checkDataUri(url, slot.field, options.maxBytes));
    else if (scheme === 'http' || scheme === 'https') fetches.push({ slot, url });
    else throw refusedScheme(scheme, slot.field);
  }

  if (fetches.length > 0) {
    // One failure stops the others: the request is refused anyway.
    const stop = new AbortController();
    const onCallerAbort = (): void => stop.abort(options.signal.reason);
    options.signal.addEventListener('abort', onCallerAbort, { once: true });
    try {
      await forEachLimited(fetches, FETCH_CONCURRENCY, async ({ slot, url }) => {
        replacements.set(slot, await fetchAsDataUri(url, slot.field, options, stop.signal));
      }).catch((error: unknown) => {
        stop.abort(error);
        throw error;
      });
    } finally {
      options.signal.removeEventListener('abort', onCallerAbort);
    }
  }

  const messages = request.messages.slice();
  for (const slot of slots) {
    const message = messages[slot.messageIndex] as Extract<ChatMessage, { role: 'user' }>;
    const content = (message.content as ContentPart[]).slice();
    content[slot.partIndex] = { ...slot.part, image_url: { ...slot.part.image_url, url: replacements.get(slot)! } };
    messages[slot.messageIndex] = { ...message, content };
  }
  return { ...request, messages };
}

function imageSlots(messages: readonly ChatMessage[]): ImageSlot[] {
  const slots: ImageSlot[] = [];
  messages.forEach((message, messageIndex) => {
    if (message.role !== 'user' || !Array.isArray(message.content)) return;
    message.content.forEach((part, partIndex) => {
      if (part.type === 'image_url') slots.push({ messageIndex, partIndex, part, field: `messages[${messageIndex}].content[${partIndex}].image_url.url` });
    });
  });
  return slots;
}

function schemeOf(url: string): string {
  const match = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(url.trimStart());
  return match === null ? '' : match[1]!.toLowerCase();
}

function refusedScheme(scheme: string, field: string): GatewayError {
  const what = scheme === '' ? 'is not an absolute URL' : `uses the scheme "${scheme}"`;
  return new GatewayError('VALIDATION_4005', `The image URL in "${field}" ${what}; send an http(s) URL or a base64 data URI (data:image/png;base64,…).`, { field });
}

function notAnImage(field: string, where: string): GatewayError {
  return new GatewayError('VALIDATION_4005', `The image in "${field}" is not a supported image (${where}); send PNG, JPEG, GIF or WebP.`, { field });
}

function tooLarge(field: string, size: number | undefined, maxBytes: number): GatewayError {
  const measured = size === undefined ? '' : ` (${size} bytes)`;
  return new GatewayError('VALIDATION_4005', `The image in "${field}" is too large${measured}: the limit is ${maxBytes} bytes (server.image_fetch_max_bytes).`, {
    field,
    limit_bytes: maxBytes,
  });
}

const DATA_URI = /^data:([^,]*?);base64,(.*)$/is;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A well-formed base64 image data URI, as `data:<sniffed mime>;base64,<payload>`. */
function checkDataUri(url: string, field: string, maxBytes: number): string {
  const match = DATA_URI.exec(url);
  if (match === null) {
    throw new GatewayError('VALIDATION_4005', `The data URI in "${field}" must be base64 encoded: data:<image type>;base64,<data>.`, { field });
  }
  const declared = (match[1]!.split(';')[0] ?? '').trim().toLowerCase();
  const payload = match[2]!;
  if (payload.length === 0 || payload.length % 4 !== 0 || !BASE64.test(payload)) {
    throw new GatewayError('VALIDATION_4005', `The data URI in "${field}" is not well-formed base64.`, { field });
  }
  const padding = payload.endsWith('==') ? 2 : payload.endsWith('=') ? 1 : 0;
  const size = (payload.length / 4) * 3 - padding;
  if (size > maxBytes) throw tooLarge(field, size, maxBytes);
  const sniffed = sniffImageType(Buffer.from(payload.slice(0, Math.ceil(SNIFF_BYTES / 3) * 4), 'base64'));
  if (sniffed === undefined) throw notAnImage(field, `declared as ${declared === '' ? 'no type' : declared}`);
  // Passed on as sent when it is already right; a wrong or missing label is corrected (a
  // provider that checks the label against the bytes would refuse it).
  const canonical = `data:${sniffed};base64,`;
  return url.startsWith(canonical) ? url : `${canonical}${payload}`;
}

async function fetchAsDataUri(url: string, field: string, options: InlineImageOptions, signal: AbortSignal): Promise<string> {
  let fetched;
  try {
    fetched = await safeFetch(url, {
      userAgent: 'igw (image fetch)',
      allowPrivate: options.allowPrivate,
      maxBytes: options.maxBytes,
      timeoutMs: options.timeoutMs,
      signal,
      accept: 'image/png, image/jpeg, image/gif, image/webp, image/*;q=0.8',
      ...(options.resolveHost === undefined ? {} : { resolveHost: options.resolveHost }),
    });
  } catch (error) {
    if (!(error instanceof SafeFetchError)) throw error; // the caller's abort reason, or a sibling's failure
    throw fetchFailure(error, field, options);
  }
  const type = sniffImageType(fetched.bytes);
  if (type === undefined) throw notAnImage(field, `the server sent ${fetched.contentType ?? 'no Content-Type'}, ${fetched.bytes.length} bytes`);
  return `data:${type};base64,${fetched.bytes.toString('base64')}`;
}

/** The client's URL could not be used: a 400 naming the field, never an upstream fault. */
function fetchFailure(error: SafeFetchError, field: string, options: InlineImageOptions): GatewayError {
  if (error.kind === 'too-large') return tooLarge(field, undefined, options.maxBytes);
  if (error.kind === 'scheme' || error.kind === 'invalid-url') {
    return new GatewayError('VALIDATION_4005', `The image URL in "${field}" cannot be fetched: ${error.message}.`, { field });
  }
  let advice = 'send a reachable public http(s) URL, or the image itself as a base64 data URI';
  if (error.kind === 'blocked-address') advice = 'igw does not fetch private or loopback addresses unless server.allow_private_urls is true; send the image as a base64 data URI instead';
  if (error.kind === 'timeout') advice = `the limit is server.image_fetch_timeout_ms (${options.timeoutMs} ms); ${advice}`;
  return new GatewayError('VALIDATION_4005', `Could not fetch the image URL in "${field}": ${error.message}; ${advice}.`, { field, reason: error.kind }, { cause: error });
}

/** Runs `work` over `items`, at most `limit` at a time; rejects with the first failure. */
async function forEachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const item = items[next]!;
      next += 1;
      try {
        await work(item);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  // The first rejection wins; Promise.all keeps later ones from going unhandled.
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, () => worker()));
}
