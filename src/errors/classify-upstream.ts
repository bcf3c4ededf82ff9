import { GatewayError } from './gateway-error.js';

/**
 * The one table from upstream faults to catalog codes (ARCHITECTURE principle 5). Messages are
 * ours and say what to do next; the provider's raw text is kept only in `cause`, and the
 * provider's own error message (parsed leniently) goes to `details.upstream_message` only where
 * the user can act on it (their request was rejected).
 */

/** What we could read out of an upstream error body, whatever the vendor's envelope. */
export interface UpstreamErrorInfo {
  message: string | undefined;
  type: string | undefined;
  code: string | number | undefined;
  param: string | undefined;
}

/** Classifies a non-2xx answer. `headers` are the upstream response headers (any case). */
export function classifyUpstreamStatus(
  status: number,
  bodyText: string,
  headers: Record<string, string | string[] | undefined>,
  providerId: string,
): GatewayError {
  const info = parseUpstreamError(bodyText);
  const cause = { status, body: bodyText.slice(0, MAX_CAUSE_CHARS) };
  const details: Record<string, unknown> = { provider: providerId, upstream_status: status };
  if (info.code !== undefined) details['upstream_code'] = info.code;

  if (status === 429) {
    const retryAfter = headerValue(headers, 'retry-after');
    const quota = info.code === 'insufficient_quota' || info.type === 'insufficient_quota';
    return new GatewayError(
      'INFERENCE_3108',
      quota
        ? `Provider "${providerId}" reports that its account quota is exhausted; check the plan and billing of that account at the provider.`
        : `Provider "${providerId}" is rate limiting requests (HTTP 429); retry later.`,
      details,
      { cause, ...(retryAfter === undefined ? {} : { headers: { 'Retry-After': retryAfter } }) },
    );
  }
  if (status === 401 || status === 403) {
    return new GatewayError(
      'INFERENCE_3105',
      `Provider "${providerId}" rejected the gateway's credentials (HTTP ${status}): check providers.${providerId}.api_key in the igw config.`,
      details,
      { cause },
    );
  }
  if (status === 404) {
    return new GatewayError(
      'INFERENCE_3105',
      `Provider "${providerId}" does not know the requested model (HTTP 404): check the route's upstream_model (and providers.${providerId}.base_url).`,
      details,
      { cause },
    );
  }
  if (status === 408) {
    return new GatewayError('INFERENCE_3107', `Provider "${providerId}" timed out handling the request (HTTP 408).`, details, { cause });
  }
  if (status === 400 || status === 413 || status === 422) {
    if (info.message !== undefined) details['upstream_message'] = info.message;
    if (info.param !== undefined) details['upstream_param'] = info.param;
    if (isContextLengthError(info)) {
      return new GatewayError('INFERENCE_3207', `The input is longer than the context window of the model at provider "${providerId}"; shorten the messages or lower max_tokens.`, details, { cause });
    }
    if (isContentFilterError(info)) {
      return new GatewayError('INFERENCE_3208', `The safety filter of provider "${providerId}" rejected the content.`, details, { cause });
    }
    return new GatewayError(
      'VALIDATION_4005',
      `Provider "${providerId}" rejected the request as invalid (HTTP ${status})${info.message === undefined ? '' : '; details.upstream_message has its reason'}.`,
      details,
      { cause },
    );
  }
  if (status >= 500) {
    return new GatewayError('INFERENCE_3105', `Provider "${providerId}" failed (HTTP ${status}).`, details, { cause });
  }
  return new GatewayError('INFERENCE_3105', `Provider "${providerId}" answered with unexpected HTTP status ${status}.`, details, { cause });
}

/**
 * Classifies a thrown transport error (undici, node:net, our own deadline). `origin` names the
 * upstream in connection messages. A GatewayError passes through unchanged.
 */
export function classifyUpstreamException(error: unknown, providerId: string, origin?: string): GatewayError {
  if (error instanceof GatewayError) return error;
  const codes = errorCodes(error);
  const details = { provider: providerId, ...(codes[0] === undefined ? {} : { upstream_error: codes[0] }) };
  const where = origin === undefined ? '' : ` at ${origin}`;

  if (codes.some((code) => TIMEOUT_CODES.has(code))) {
    const timeoutMs = findTimeoutMs(error);
    return new GatewayError(
      'INFERENCE_3107',
      `Provider "${providerId}"${where} did not answer in time${timeoutMs === undefined ? '' : ` (limit ${timeoutMs} ms, providers.${providerId}.timeout_ms)`}.`,
      details,
      { cause: error },
    );
  }
  const connectionCode = codes.find((code) => CONNECTION_CODES.has(code));
  if (connectionCode !== undefined) {
    return new GatewayError(
      'INFERENCE_3105',
      `Could not reach provider "${providerId}"${where} (${describeConnectionCode(connectionCode)}); check that it is running and that providers.${providerId}.base_url is right.`,
      details,
      { cause: error },
    );
  }
  if (isAbort(error, codes)) {
    return new GatewayError('INFERENCE_3105', `The request to provider "${providerId}" was cancelled before it finished.`, details, { cause: error });
  }
  return new GatewayError('INFERENCE_3105', `The request to provider "${providerId}"${where} failed.`, details, { cause: error });
}

/**
 * Classifies an error the provider reported inside a 200 stream: OpenRouter's chunk with a
 * top-level `error` object, Groq's `event: error`. The HTTP status is already spent, so it is
 * always INFERENCE_3105; the provider's own words go to details.upstream_message.
 */
export function classifyUpstreamStreamError(payload: unknown, providerId: string): GatewayError {
  const info = readUpstreamError(payload);
  const details: Record<string, unknown> = { provider: providerId };
  if (info.message !== undefined) details['upstream_message'] = info.message;
  if (info.code !== undefined) details['upstream_code'] = info.code;
  return new GatewayError('INFERENCE_3105', `Provider "${providerId}" reported an error in the middle of the stream.`, details, { cause: payload });
}

/**
 * Classifies an in-stream error event that names its kind by an error `type` rather than an
 * HTTP status (Anthropic's `event: error` carrying `{type: "error", error: {type, message}}`).
 * The type keeps its meaning: a rate limit stays INFERENCE_3108 (retryable), an oversized prompt
 * INFERENCE_3207; overloaded_error, api_error and anything else are INFERENCE_3105 (retryable).
 */
export function classifyUpstreamErrorEvent(payload: unknown, providerId: string): GatewayError {
  const info = readUpstreamError(payload);
  const details: Record<string, unknown> = { provider: providerId };
  if (info.type !== undefined) details['upstream_type'] = info.type;
  if (info.message !== undefined) details['upstream_message'] = info.message;
  if (info.type === 'rate_limit_error') {
    return new GatewayError('INFERENCE_3108', `Provider "${providerId}" is rate limiting requests (reported in the stream); retry later.`, details, { cause: payload });
  }
  if (info.type === 'overloaded_error') {
    return new GatewayError('INFERENCE_3105', `Provider "${providerId}" is overloaded (reported in the stream); retry later.`, details, { cause: payload });
  }
  if (isContextLengthError(info)) {
    return new GatewayError('INFERENCE_3207', `The input is longer than the context window of the model at provider "${providerId}"; shorten the messages or lower max_tokens.`, details, { cause: payload });
  }
  return new GatewayError('INFERENCE_3105', `Provider "${providerId}" reported an error in the middle of the stream.`, details, { cause: payload });
}

/**
 * Reads message/type/code/param out of the envelopes seen in the recorded errors: OpenAI and
 * Groq `{error: {message, type, code, param}}`, Anthropic `{type: "error", error: {type,
 * message}}`, OpenRouter `{error: {code: 429, message, metadata: {raw}}}`, plus the plain
 * `{error: "text"}`, `{message}` and `{detail}` of smaller servers.
 */
export function parseUpstreamError(bodyText: string): UpstreamErrorInfo {
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    return { message: undefined, type: undefined, code: undefined, param: undefined };
  }
  return readUpstreamError(body);
}

/** Same as parseUpstreamError, for a body that is already parsed (an in-stream error event). */
export function readUpstreamError(body: unknown): UpstreamErrorInfo {
  const info: UpstreamErrorInfo = { message: undefined, type: undefined, code: undefined, param: undefined };
  if (!isRecord(body)) return info;
  const inner = body['error'];
  const envelope = isRecord(inner) ? inner : body;
  if (typeof inner === 'string') info.message = inner;
  if (typeof envelope['message'] === 'string') info.message = envelope['message'];
  else if (typeof envelope['detail'] === 'string') info.message = envelope['detail'];
  // OpenRouter's generic "Provider returned error" hides the real reason in metadata.raw.
  const metadata = envelope['metadata'];
  if (isRecord(metadata) && typeof metadata['raw'] === 'string' && metadata['raw'].length > 0) {
    const raw = metadata['raw'].slice(0, 1_000);
    info.message = info.message === undefined ? raw : `${info.message}: ${raw}`;
  }
  if (typeof envelope['type'] === 'string' && envelope['type'] !== 'error') info.type = envelope['type'];
  if (typeof envelope['code'] === 'string' || typeof envelope['code'] === 'number') info.code = envelope['code'];
  if (typeof envelope['param'] === 'string') info.param = envelope['param'];
  return info;
}

const MAX_CAUSE_CHARS = 16_384;

const CONTEXT_LENGTH_CODES = new Set(['context_length_exceeded', 'string_above_max_length', 'exceed_context_size_error']);
const CONTEXT_LENGTH_MESSAGE =
  /context[_ ]length|maximum context|context window|context size|prompt is too long|too many tokens|reduce the length of the (messages|prompt)/i;

const CONTENT_FILTER_CODES = new Set(['content_filter', 'content_policy_violation', 'responsibleaipolicyviolation', 'moderation_blocked']);
const CONTENT_FILTER_MESSAGE = /content[ _-]?(filter|policy|management)|safety system|flagged (by|as)/i;

function isContextLengthError(info: UpstreamErrorInfo): boolean {
  if (typeof info.code === 'string' && CONTEXT_LENGTH_CODES.has(info.code.toLowerCase())) return true;
  if (info.type !== undefined && CONTEXT_LENGTH_CODES.has(info.type.toLowerCase())) return true;
  return info.message !== undefined && CONTEXT_LENGTH_MESSAGE.test(info.message);
}

function isContentFilterError(info: UpstreamErrorInfo): boolean {
  if (typeof info.code === 'string' && CONTENT_FILTER_CODES.has(info.code.toLowerCase())) return true;
  if (info.type !== undefined && CONTENT_FILTER_CODES.has(info.type.toLowerCase())) return true;
  return info.message !== undefined && CONTENT_FILTER_MESSAGE.test(info.message);
}

const TIMEOUT_CODES = new Set([
  'IGW_UPSTREAM_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'ABORT_ERR_TIMEOUT',
]);

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  'UND_ERR_INFO',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_HAS_EXPIRED',
]);

function describeConnectionCode(code: string): string {
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host name not found';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EHOSTDOWN':
      return 'host unreachable';
    case 'ECONNRESET':
    case 'ECONNABORTED':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
    case 'UND_ERR_DESTROYED':
    case 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH':
      return 'connection closed unexpectedly';
    default:
      return code.startsWith('UND_ERR') ? 'connection error' : 'TLS certificate problem';
  }
}

/**
 * Collects `code`s along the error, its `cause` chain and AggregateError members (Node's
 * happy-eyeballs connect reports one error per address tried).
 */
function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  const seen = new Set<unknown>();
  const visit = (value: unknown, depth: number): void => {
    if (!isRecord(value) || seen.has(value) || depth > 5) return;
    seen.add(value);
    if (typeof value['code'] === 'string') codes.push(value['code']);
    if (value['name'] === 'TimeoutError') codes.push('ABORT_ERR_TIMEOUT');
    visit(value['cause'], depth + 1);
    const members = value['errors'];
    if (Array.isArray(members)) for (const member of members) visit(member, depth + 1);
  };
  visit(error, 0);
  return codes;
}

function findTimeoutMs(error: unknown): number | undefined {
  return isRecord(error) && typeof error['timeoutMs'] === 'number' ? error['timeoutMs'] : undefined;
}

function isAbort(error: unknown, codes: string[]): boolean {
  return codes.includes('UND_ERR_ABORTED') || codes.includes('ABORT_ERR') || (isRecord(error) && error['name'] === 'AbortError');
}

function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
