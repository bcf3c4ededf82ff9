import fc from 'fast-check';
import type { GatewayRoute } from '../../src/http/routes.js';
import type { RawRequest } from '../helpers/raw-http.js';

/**
 * fast-check arbitraries for malformed requests against the route table (issue 14): for each
 * route, a few valid seed bodies, then mutations of them (wrong JSON types at any field, deleted
 * and unknown fields, huge and deeply nested values), raw garbage, broken multipart, bad query
 * strings, odd methods, targets and header bytes.
 */

/** Real ids made before the run, so parameterised routes reach past their 404s. */
export interface FuzzIds {
  vectorStore: string;
  file: string;
  batchInputFile: string;
  fileBatch: string;
  batch: string;
}

export interface FuzzContext {
  port: number;
  key: string;
  ids: FuzzIds;
}

export interface FuzzCase {
  /** `METHOD path` of the route the case was built from. */
  route: string;
  request: RawRequest;
  /**
   * The body is shorter than its content-length: the client half-closes after it, which Node
   * treats as a client abort, so the server may close without an answer (never hang).
   */
  incomplete: boolean;
}

/** A JSON fragment spliced into a body as is (deep nesting built as text: no recursion anywhere). */
class RawJson {
  constructor(readonly text: string) {}
}

type Json = null | boolean | number | string | RawJson | Json[] | { [key: string]: Json };

/** JSON text of a seed body with RawJson fragments spliced in. Seeds are shallow, so recursion is fine. */
function toJson(value: Json): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (value !== null && typeof value === 'object') return `{${Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}:${toJson(item)}`).join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

const USER = [{ role: 'user', content: 'hello fuzz' }];

/** Valid bodies per route, the starting points of the mutations. */
function seedBodies(ids: FuzzIds): Record<string, Json[]> {
  const vs = '/v1/vector_stores/{vector_store_id}';
  return {
    'POST /v1/chat/completions': [
      { model: 'local-echo', messages: USER },
      { model: 'local-echo', stream: true, stream_options: { include_usage: true }, n: 2, max_tokens: 5, stop: ['zz'], logprobs: true, top_logprobs: 2, messages: [{ role: 'system', content: 's' }, { role: 'user', content: [{ type: 'text', text: 'hi' }] }] },
      { model: 'local-echo', tool_choice: 'required', tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] } } }], messages: USER },
      { model: 'local-echo', response_format: { type: 'json_schema', json_schema: { name: 's', schema: { type: 'object', properties: { x: { type: 'integer' } }, required: ['x'] } } }, messages: USER },
      { model: 'local-echo', request_id: 'fuzz-1', messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] }, { role: 'tool', tool_call_id: 'c1', content: 'r' }] },
    ],
    'POST /v1/messages': [
      { model: 'local-echo', max_tokens: 16, messages: USER },
      { model: 'local-echo', max_tokens: 16, stream: true, system: 'be brief', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [{ name: 'f', input_schema: { type: 'object', properties: { a: { type: 'string' } } } }], tool_choice: { type: 'any' } },
    ],
    'POST /v1/messages/count_tokens': [{ model: 'local-echo', messages: USER, system: 's' }],
    'POST /v1/responses': [
      { model: 'local-echo', input: 'hello' },
      { model: 'local-echo', stream: true, instructions: 'x', input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }], tools: [{ type: 'function', name: 'f', parameters: { type: 'object' } }] },
      { model: 'local-echo', input: 'hello', tools: [{ type: 'file_search', vector_store_ids: [ids.vectorStore] }], include: ['file_search_call.results'] },
    ],
    'POST /v1/embeddings': [{ model: 'local-embed', input: 'hello' }, { model: 'local-embed', input: ['a', 'b'], dimensions: 8, encoding_format: 'base64' }],
    'POST /v1/rerank': [{ model: 'local-rerank', query: 'q', documents: ['alpha', 'beta'], top_n: 1 }],
    'POST /v1/images/generations': [{ model: 'local-image', prompt: 'a cat', size: '256x256', n: 1, response_format: 'b64_json' }],
    'POST /v1/batches': [{ input_file_id: ids.batchInputFile, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { a: 'b' } }],
    'POST /v1/vector_stores': [{ name: 'fuzz', metadata: { a: 'b' }, expires_after: { anchor: 'last_active_at', days: 3 } }],
    [`POST ${vs}`]: [{ name: 'renamed', metadata: { k: 'v' } }],
    [`POST ${vs}/files`]: [{ file_id: ids.file, attributes: { a: 1 }, chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 200, chunk_overlap_tokens: 50 } } }],
    [`POST ${vs}/files/{file_id}`]: [{ attributes: { k: 'v', n: 2, b: true } }],
    // A private address: refused (allow_private_urls is false), never fetched.
    [`POST ${vs}/sources/url`]: [{ url: 'http://127.0.0.1:9/doc.html' }],
    [`POST ${vs}/sources/text`]: [{ text: 'hello fuzz world', name: 'fuzz.txt', attributes: { a: 'b' } }],
    [`POST ${vs}/file_batches`]: [{ file_ids: [ids.file] }],
    [`POST ${vs}/search`]: [{ query: 'hello', max_num_results: 3, filters: { type: 'eq', key: 'a', value: 1 }, ranking_options: { score_threshold: 0.1 }, rewrite_query: false }],
  };
}

/** Multipart routes: their file field and text fields. */
const MULTIPART: Record<string, { fields: Record<string, string>; filename: string; contentType: string; content: string }> = {
  'POST /v1/files': { fields: { purpose: 'assistants' }, filename: 'notes.txt', contentType: 'text/plain', content: 'hello fuzz file' },
  'POST /v1/audio/transcriptions': { fields: { model: 'whisper-1', response_format: 'json' }, filename: 'a.wav', contentType: 'audio/wav', content: 'RIFF....WAVEfmt ' },
  'POST /v1/vector_stores/{vector_store_id}/files/upload': { fields: { purpose: 'assistants' }, filename: 'doc.md', contentType: 'text/markdown', content: '# Title\n\nhello fuzz' },
};

/** Strings that could be a fetchable URL are left out: no test touches the network. */
const noUrl = (text: string) => !/(https?|wss?|ftp):/i.test(text);

/** Characters that break naive code: controls, separators, surrogates (lone and paired), quotes. */
const oddChar = fc.constantFrom('\u0000', '\u0001', '\u001f', '\u007f', '\r', '\n', '\t', '\u2028', '\ud800', '\udfff', '\ufeff', '\u00e9', '\u20ac', '\u{1F600}', '"', '\\', '%', '{', '<', ' ');
const oddString = fc.string({ unit: fc.oneof(oddChar, fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })), maxLength: 40 }).filter(noUrl);

const deepText = (depth: number, open: string, close: string, inner = '1') => `${open.repeat(depth)}${inner}${close.repeat(depth)}`;

/** A value of the wrong type (or shape, or size) for whatever field it lands on. */
const wrongValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom<Json>(null, true, false, 0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 2, '', 'local-echo', [], {}, [null], { '': null }, '0', 'true') },
  { weight: 3, arbitrary: oddString },
  { weight: 2, arbitrary: fc.integer().map((value) => value as Json) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).filter((value) => noUrl(JSON.stringify(value) ?? '')).map((value) => value as Json) },
  { weight: 1, arbitrary: fc.integer({ min: 10_000, max: 400_000 }).map((length) => 'x'.repeat(length)) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 30_000 }).map((length) => new RawJson(`[${new Array(length).fill('"a"').join(',')}]`)) },
  { weight: 1, arbitrary: fc.integer({ min: 50, max: 50_000 }).map((depth) => new RawJson(deepText(depth, '[', ']'))) },
  { weight: 1, arbitrary: fc.integer({ min: 50, max: 50_000 }).map((depth) => new RawJson(deepText(depth, '{"a":', '}'))) },
);

type Path = Array<string | number>;

/** Every path into a seed (objects and arrays), the root included. */
function pathsOf(value: Json, prefix: Path = []): Path[] {
  const paths: Path[] = [prefix];
  if (Array.isArray(value)) value.forEach((item, index) => paths.push(...pathsOf(item, [...prefix, index])));
  else if (value !== null && typeof value === 'object' && !(value instanceof RawJson)) for (const [key, item] of Object.entries(value)) paths.push(...pathsOf(item, [...prefix, key]));
  return paths;
}

type Mutation = { kind: 'set'; value: Json } | { kind: 'delete' } | { kind: 'add'; key: string; value: Json };

/** A copy of `root` with one mutation applied at `path`. */
function mutate(root: Json, path: Path, mutation: Mutation): Json {
  if (path.length === 0) {
    if (mutation.kind === 'set') return mutation.value;
    if (mutation.kind === 'add' && root !== null && typeof root === 'object' && !Array.isArray(root) && !(root instanceof RawJson)) return { ...root, [mutation.key]: mutation.value };
    return mutation.kind === 'delete' ? null : root;
  }
  const [head, ...rest] = path;
  if (Array.isArray(root)) {
    const copy = [...root];
    if (rest.length === 0 && mutation.kind === 'delete') copy.splice(head as number, 1);
    else copy[head as number] = mutate(root[head as number] ?? null, rest, mutation);
    return copy;
  }
  if (root !== null && typeof root === 'object' && !(root instanceof RawJson)) {
    const copy = { ...root };
    if (rest.length === 0 && mutation.kind === 'delete') delete copy[head as string];
    else copy[head as string] = mutate(root[head as string] ?? null, rest, mutation);
    return copy;
  }
  return root;
}

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 6, arbitrary: wrongValue.map((value) => ({ kind: 'set' as const, value })) },
  { weight: 2, arbitrary: fc.constant({ kind: 'delete' as const }) },
  { weight: 2, arbitrary: fc.tuple(fc.oneof(fc.constantFrom('stream', 'model', 'n', 'tools', '__proto__', 'constructor', 'toString'), oddString), wrongValue).map(([key, value]) => ({ kind: 'add' as const, key, value })) },
);

/** A seed with 1–3 mutations, each at a path of the (already mutated) body. */
function mutatedSeed(seeds: Json[]): fc.Arbitrary<string> {
  return fc
    .tuple(fc.constantFrom(...seeds), fc.array(fc.tuple(fc.nat(), mutationArb), { minLength: 1, maxLength: 3 }))
    .map(([seed, steps]) => {
      let body = seed;
      for (const [pick, mutation] of steps) {
        const paths = pathsOf(body);
        body = mutate(body, paths[pick % paths.length]!, mutation);
      }
      return toJson(body);
    });
}

function jsonBody(seeds: Json[] | undefined): fc.Arbitrary<Buffer> {
  const valid = seeds ?? [{}];
  return fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...valid).map((seed) => Buffer.from(toJson(seed))) },
    { weight: 10, arbitrary: mutatedSeed(valid).map((text) => Buffer.from(text)) },
    { weight: 1, arbitrary: wrongValue.map((value) => Buffer.from(toJson(value))) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...valid), fc.nat()).map(([seed, cut]) => { const text = toJson(seed); return Buffer.from(text.slice(0, cut % Math.max(1, text.length))); }) },
    { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 200_000 }).map((depth) => Buffer.from(deepText(depth, '[', ']'))) },
    { weight: 1, arbitrary: fc.constantFrom(Buffer.alloc(0), Buffer.from('null'), Buffer.from('"text"'), Buffer.from('{}'), Buffer.from('\ufeff{}'), Buffer.from('{"a":1}{"b":2}')) },
  );
}

interface MultipartBody {
  contentType: string;
  body: Buffer;
}

/** A multipart body: well formed with odd values, or broken on purpose. */
function multipartBody(spec: (typeof MULTIPART)[string] | undefined): fc.Arbitrary<MultipartBody> {
  const base = spec ?? { fields: { purpose: 'assistants' }, filename: 'x.txt', contentType: 'text/plain', content: 'x' };
  const fieldValue = fc.oneof(fc.constantFrom(...Object.values(base.fields), 'batch', 'assistants', '', 'verbose_json', 'srt'), oddString);
  const filename = fc.oneof(fc.constant(base.filename), oddString, fc.constantFrom('', '../../etc/passwd', 'a'.repeat(5000), 'x.pdf', 'x.docx', 'x.html', 'x.wav'));
  const content = fc.oneof(fc.constant(Buffer.from(base.content)), fc.uint8Array({ maxLength: 2000 }).map((bytes) => Buffer.from(bytes)), fc.constant(Buffer.alloc(0)), fc.constant(Buffer.from('%PDF-1.4\n%broken')), fc.constant(Buffer.from('PK\u0003\u0004broken zip')));
  const well = fc
    .tuple(fc.constantFrom('fuzzboundary', 'a', '----x'), fc.dictionary(fc.oneof(fc.constantFrom(...Object.keys(base.fields), 'file', 'timestamp_granularities[]'), oddString), fieldValue, { maxKeys: 4 }), fc.boolean(), filename, fc.oneof(fc.constant(base.contentType), oddString), content, fc.boolean())
    .map(([boundary, extra, withBase, name, type, bytes, withFile]) => {
      const fields = { ...(withBase ? base.fields : {}), ...extra };
      const parts: Buffer[] = [];
      for (const [field, value] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${field}"\r\n\r\n${value}\r\n`, 'utf8'));
      if (withFile) parts.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${name}"\r\ncontent-type: ${type}\r\n\r\n`, 'utf8'), bytes, Buffer.from('\r\n'));
      parts.push(Buffer.from(`--${boundary}--\r\n`));
      return { contentType: `multipart/form-data; boundary=${boundary}`, body: Buffer.concat(parts) };
    });
  const broken = fc.oneof(
    // Cut anywhere (no closing boundary).
    fc.tuple(well, fc.nat()).map(([part, cut]) => ({ ...part, body: part.body.subarray(0, cut % Math.max(1, part.body.length)) })),
    // No boundary, the wrong boundary, or none of the parts the header announces.
    well.map((part) => ({ ...part, contentType: 'multipart/form-data' })),
    well.map((part) => ({ ...part, contentType: 'multipart/form-data; boundary=other' })),
    fc.uint8Array({ maxLength: 500 }).map((bytes) => ({ contentType: 'multipart/form-data; boundary=fuzzboundary', body: Buffer.from(bytes) })),
    // RFC 5987 file name with a lone surrogate and a NUL once decoded.
    fc.constant({ contentType: 'multipart/form-data; boundary=b', body: Buffer.from(`--b\r\ncontent-disposition: form-data; name="purpose"\r\n\r\nassistants\r\n--b\r\ncontent-disposition: form-data; name="file"; filename*=UTF-8''%ED%A0%80%00x.txt\r\ncontent-type: text/plain\r\n\r\nhi\r\n--b--\r\n`) }),
    // A header section that never ends.
    fc.constant({ contentType: 'multipart/form-data; boundary=b', body: Buffer.from(`--b\r\ncontent-disposition: form-data; name="file"; filename="x"\r\n${'x-pad: y\r\n'.repeat(3000)}`) }),
  );
  return fc.oneof({ weight: 3, arbitrary: well }, { weight: 2, arbitrary: broken });
}

/** A path parameter: a real id most of the time, else something odd (encoded controls, surrogates, huge). */
function paramValue(name: string, ids: FuzzIds): fc.Arbitrary<string> {
  const real: Record<string, string[]> = {
    vector_store_id: [ids.vectorStore],
    file_id: [ids.file],
    batch_id: [ids.fileBatch],
    id: [ids.file, ids.batch, 'local-echo', 'resp_123'],
  };
  const odd = fc.oneof(
    oddString.map((text) => encodeURIComponent(text.replace(/[\ud800-\udfff]/g, ''))),
    fc.constantFrom('%00', '%ff%fe', '%ED%A0%80', '%', '..', '%2e%2e', '%2F', 'a'.repeat(5000), 'vs_', 'file-', 'null', '-1'),
  );
  return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...(real[name] ?? ['x'])) }, { weight: 2, arbitrary: odd });
}

const queryString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constant('') },
  {
    weight: 3,
    arbitrary: fc
      .array(fc.tuple(fc.oneof(fc.constantFrom('limit', 'after', 'before', 'order', 'include_meta', 'purpose', 'filter', 'include[]', 'api-version'), oddString.map(encodeURIComponentSafe)), fc.oneof(fc.constantFrom('-1', '0', '1e9', 'NaN', '10000000000000000000000', 'asc', 'desc', 'true', '%zz', '%', '', 'file-x', 'a'.repeat(3000)), oddString.map(encodeURIComponentSafe))), { maxLength: 5 })
      .map((pairs) => `?${pairs.map(([key, value]) => `${key}=${value}`).join('&')}`),
  },
  { weight: 1, arbitrary: fc.constantFrom('?', '??', '?&&&', '?=', '?limit', '?limit=1&limit=2', '?%00=%00', '?\u00e9=\u00ff') },
);

function encodeURIComponentSafe(text: string): string {
  return encodeURIComponent(text.replace(/[\ud800-\udfff]/g, ''));
}

/** Targets that are not a route's path at all. */
const oddTarget = fc.constantFrom('*', 'http://127.0.0.1/v1/models', 'http://[::1', '//v1//models', '/v1/models/', '/v1/%', '/v1/\u00e9', `/${'a'.repeat(10_000)}`, '/v1/chat/completions#frag', '/v1/../v1/models', '/v1/models?x=\u0000', 'v1/models', '/\u007f');

const oddMethod = fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS', 'TRACE', 'CONNECT', 'PROPFIND', 'get', 'FUZZ', 'M-SEARCH');

/** Header values as raw bytes: controls, obs-text, long, empty. */
const headerBytes: fc.Arbitrary<Buffer> = fc.oneof(
  fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes.filter((byte) => byte !== 0x0a && byte !== 0x0d))),
  fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
  oddString.map((text) => Buffer.from(text, 'utf8')),
  fc.constantFrom(Buffer.from(''), Buffer.from('x'.repeat(9000)), Buffer.from('caf\xe9', 'latin1'), Buffer.from('\x01\x02'), Buffer.from('2023-06-01')),
);

/** Header values Node's parser accepts (tab, visible ASCII, obs-text), so they reach the handlers. */
const parserSafeBytes: fc.Arbitrary<Buffer> = fc.oneof(
  fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes.filter((byte) => byte === 0x09 || (byte >= 0x20 && byte !== 0x7f)))),
  fc.constantFrom(Buffer.from('caf\xe9', 'latin1'), Buffer.from('\u00e9\u20ac', 'utf8'), Buffer.from('x'.repeat(300)), Buffer.from('2023-06-01'), Buffer.from('*'), Buffer.from('http://evil.example')),
);

const extraHeaderName = fc.oneof(
  fc.constantFrom('x-request-id', 'x-client-request-id', 'idempotency-key', 'anthropic-version', 'compat-version', 'anthropic-beta', 'openai-beta', 'origin', 'access-control-request-headers', 'x-vault-key', 'x-stainless-retry-count', 'user-agent', 'accept', 'accept-encoding', 'cookie', 'x-api-key', 'expect', 'upgrade', 'transfer-encoding', 'content-encoding', 'x-forwarded-for', 'range'),
  fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
);

/** What the fuzzer needs of a route (rows of ROUTES and of PUBLIC_ROUTES alike). */
export type FuzzRoute = Pick<GatewayRoute, 'path' | 'body' | 'dialect'> & { method: string };

/** Every route the server answers: the route table and the public probes (`GET /`, `/health`). */
export function allRoutes(routes: readonly GatewayRoute[], publicRoutes: Readonly<Record<string, unknown>>): FuzzRoute[] {
  const probes = Object.keys(publicRoutes).map((key): FuzzRoute => {
    const [method, path] = key.split(' ') as [string, string];
    return { method, path, body: 'none', dialect: 'gateway' };
  });
  return [...routes, ...probes];
}

/** One malformed (or, now and then, valid) request for `route`. */
export function requestFor(route: FuzzRoute, context: FuzzContext): fc.Arbitrary<FuzzCase> {
  const name = `${route.method} ${route.path}`;
  const seeds = seedBodies(context.ids)[name];
  const multipart = MULTIPART[name];
  const params = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  const path = fc.tuple(...params.map((param) => paramValue(param, context.ids))).map((values) => {
    let filled = route.path;
    params.forEach((param, index) => (filled = filled.replace(`{${param}}`, values[index]!)));
    return filled;
  });
  const target = fc.oneof({ weight: 12, arbitrary: fc.tuple(path, queryString).map(([p, q]) => p + q) }, { weight: 1, arbitrary: oddTarget });
  const method = fc.oneof({ weight: 8, arbitrary: fc.constant(route.method) }, { weight: 1, arbitrary: oddMethod });

  const body: fc.Arbitrary<MultipartBody> =
    multipart !== undefined
      ? fc.oneof({ weight: 5, arbitrary: multipartBody(multipart) }, { weight: 1, arbitrary: jsonBody(undefined).map((bytes) => ({ contentType: 'application/json', body: bytes })) })
      : route.body === 'json'
        ? fc.oneof({ weight: 12, arbitrary: jsonBody(seeds).map((bytes) => ({ contentType: 'application/json', body: bytes })) }, { weight: 1, arbitrary: multipartBody(undefined) })
        : fc.oneof({ weight: 6, arbitrary: fc.constant({ contentType: 'application/json', body: Buffer.alloc(0) }) }, { weight: 1, arbitrary: jsonBody(undefined).map((bytes) => ({ contentType: 'application/json', body: bytes })) });

  const auth = fc.oneof(
    { weight: 12, arbitrary: fc.constant<Array<[string, Buffer | string]>>([['authorization', `Bearer ${context.key}`]]) },
    { weight: 1, arbitrary: fc.constant<Array<[string, Buffer | string]>>([]) },
    { weight: 1, arbitrary: headerBytes.map((bytes): Array<[string, Buffer | string]> => [['authorization', Buffer.concat([Buffer.from('Bearer '), bytes])]]) },
    { weight: 1, arbitrary: fc.constant<Array<[string, Buffer | string]>>([['x-api-key', context.key], ['authorization', 'Bearer sk-other']]) },
  );
  const contentType = fc.oneof({ weight: 10, arbitrary: fc.constant<string | undefined>(undefined) }, { weight: 1, arbitrary: fc.constantFrom<string | undefined>('text/plain', 'application/json; charset=latin1', 'multipart/form-data', '', 'application/x-www-form-urlencoded') });
  // How the body is framed: correct length, chunked, a length that lies, or none at all.
  const framing = fc.oneof({ weight: 10, arbitrary: fc.constant('length' as const) }, { weight: 2, arbitrary: fc.constantFrom('chunked' as const, 'short' as const, 'long' as const, 'none' as const, 'both' as const, 'twice' as const) });
  const host = fc.oneof({ weight: 12, arbitrary: fc.constant(`127.0.0.1:${context.port}`) }, { weight: 1, arbitrary: fc.constantFrom('evil.example', '', 'localhost', '[::1]:80', '127.0.0.1.', '\u00e9') });
  // Bytes Node's parser refuses (controls) end at its 400 before any handler: kept rarer than
  // values it lets through (obs-text, long, odd but legal), which reach the handlers' echo paths.
  const extras = fc.oneof(
    { weight: 3, arbitrary: fc.constant<Array<[string, Buffer]>>([]) },
    { weight: 3, arbitrary: fc.array(fc.tuple(extraHeaderName, parserSafeBytes), { minLength: 1, maxLength: 4 }) },
    { weight: 1, arbitrary: fc.array(fc.tuple(extraHeaderName, headerBytes), { minLength: 1, maxLength: 4 }) },
  );
  const anthropicVersion = fc.oneof({ weight: 6, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) });

  return fc.record({ method, target, body, auth, contentType, framing, host, extras, anthropicVersion }).map((picked) => {
    const headers: Array<[string, Buffer | string]> = [['host', picked.host], ...picked.auth, ['content-type', picked.contentType ?? picked.body.contentType]];
    if (picked.anthropicVersion && route.dialect === 'messages') headers.push(['anthropic-version', '2023-06-01']);
    headers.push(...picked.extras);
    let bytes = picked.body.body;
    switch (picked.framing) {
      case 'length':
        headers.push(['content-length', String(bytes.length)]);
        break;
      case 'chunked':
        headers.push(['transfer-encoding', 'chunked']);
        bytes = bytes.length === 0 ? Buffer.from('0\r\n\r\n') : Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n0\r\n\r\n')]);
        break;
      case 'short':
        headers.push(['content-length', String(Math.floor(bytes.length / 2))]);
        break;
      case 'long':
        headers.push(['content-length', String(bytes.length + 100)]);
        break;
      case 'both':
        headers.push(['content-length', String(bytes.length)], ['transfer-encoding', 'chunked']);
        break;
      case 'twice':
        headers.push(['content-length', String(bytes.length)], ['content-length', String(bytes.length + 1)]);
        break;
      case 'none':
        break;
    }
    headers.push(['connection', 'close']);
    return { route: name, request: { method: picked.method, target: picked.target, headers, body: bytes }, incomplete: picked.framing === 'long' };
  });
}
