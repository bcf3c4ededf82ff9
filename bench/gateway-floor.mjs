// The floor experiment of issue 18 item 3: a minimal gateway that does only the steps igw cannot
// skip for the bench's three scenarios, and nothing else — read and parse the JSON body, check the
// bearer key (sha256 + map lookup), a balance and a rate counter, one undici call with the model
// rewritten, then the answer with usage, cost and impact added, igw's response headers and one JSON
// request-log line on stderr. Chat JSON is parsed and re-serialised (igw must add fields inside it);
// streams and embeddings forward the upstream's bytes and rewrite only the usage part.
// `BENCH_FLOOR=1 node bench/gateway.mjs` measures it beside the pass-through and igw: its per-core
// ratio to the pass-through is the most igw's design could reach on this machine.
//   node bench/gateway-floor.mjs UPSTREAM_ORIGIN KEY
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { Pool } from 'undici';

const [upstreamOrigin, key] = process.argv.slice(2);
const upstream = new Pool(upstreamOrigin, { connections: 256 });
const keys = new Map([[createHash('sha256').update(key).digest('hex'), { id: 'key_floor', name: 'bench', account: { balance: 1e9, requests: 0 } }]]);
const models = new Map([
  ['bench-model', { upstream: 'bench-model', path: '/v1/chat/completions', inEur: 0.14e-6, outEur: 0.55e-6, whIn: 0.02e-3, whOut: 0.2e-3 }],
  ['bench-embed', { upstream: 'bench-embed', path: '/v1/embeddings', inEur: 0.02e-6, outEur: 0, whIn: 0.001e-3, whOut: 0 }],
]);

const fail = (response, status, code) => response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ error: { code } }));
const headersOf = (contentType, account, started) => ({
  'content-type': contentType,
  'x-igw-overhead-ms': (performance.now() - started).toFixed(3),
  'x-ratelimit-limit-requests': '100000000',
  'x-ratelimit-remaining-requests': String(100000000 - account.requests),
  'x-ratelimit-reset-requests': '1m0s',
  'x-request-id': `req_${randomBytes(18).toString('base64url')}`,
});
const settle = (record, model, usage) => {
  const inputTokens = usage.prompt_tokens ?? 0;
  const outputTokens = usage.completion_tokens ?? 0;
  const eur = inputTokens * model.inEur + outputTokens * model.outEur;
  record.account.balance -= eur;
  const kwh = ((inputTokens * model.whIn + outputTokens * model.whOut) * 1.2) / 1000;
  return {
    eur,
    impact: { energy_kwh: kwh, carbon_g_co2: kwh * 400, water_liters: kwh * 1.8, renewable_percent: 0, pue: 1.2, provider_id: 'bench', location: 'ZZ' },
    billing: { energy: (eur * 1000).toFixed(5), credits: eur.toFixed(8), paid_with: 'energy' },
  };
};
const log = (record, endpoint, model, status, eur, started) =>
  process.stderr.write(
    `${JSON.stringify({ time: new Date().toISOString(), level: 'info', msg: 'request', key: record.name, key_id: record.id, endpoint, model, status, latency_ms: Math.round(performance.now() - started), eur: eur.toFixed(8) })}\n`,
  );

const server = createServer({ keepAliveTimeout: 65000 }, async (request, response) => {
  const started = performance.now();
  const authorization = request.headers.authorization ?? '';
  const record = keys.get(createHash('sha256').update(authorization.slice(7)).digest('hex'));
  const parts = [];
  for await (const part of request) parts.push(part);
  if (record === undefined) return fail(response, 401, 'AUTH_1001');
  let body;
  try {
    body = JSON.parse(Buffer.concat(parts).toString('utf8'));
  } catch {
    return fail(response, 400, 'VALIDATION_4001');
  }
  const model = models.get(body.model);
  if (model === undefined || model.path !== request.url) return fail(response, 404, 'INFERENCE_3001');
  if (record.account.balance <= 0) return fail(response, 402, 'BILLING_2001');
  record.account.requests += 1;
  try {
    const reply = await upstream.request({ method: 'POST', path: model.path, headers: { 'content-type': 'application/json', authorization: 'Bearer bench' }, body: JSON.stringify({ ...body, model: model.upstream }) });
    if (body.stream === true) return await forwardStream(reply, response, record, model, started);
    const text = await reply.body.text();
    if (model.path === '/v1/embeddings') {
      // The vectors are forwarded as bytes: only the usage object at the end is parsed.
      const at = text.lastIndexOf('"usage"');
      const usage = JSON.parse(text.slice(at + 8, text.lastIndexOf('}')));
      const { eur, impact, billing } = settle(record, model, usage);
      response.writeHead(200, headersOf('application/json; charset=utf-8', record.account, started));
      response.end(`${text.slice(0, at)}"usage":${JSON.stringify(usage)},"environment_impact":${JSON.stringify(impact)},"billing_cost":${JSON.stringify(billing)}}`);
      return log(record, request.url, body.model, 200, eur, started);
    }
    const answer = JSON.parse(text);
    const { eur, impact, billing } = settle(record, model, answer.usage);
    answer.model = body.model;
    answer.environment_impact = impact;
    answer.billing_cost = billing;
    response.writeHead(200, headersOf('application/json; charset=utf-8', record.account, started));
    response.end(JSON.stringify(answer));
    log(record, request.url, body.model, 200, eur, started);
  } catch {
    fail(response, 502, 'INFERENCE_3105');
  }
});

/** Forwards the upstream's SSE bytes; the event that carries usage is re-serialised with cost and impact. */
async function forwardStream(reply, response, record, model, started) {
  response.writeHead(200, { ...headersOf('text/event-stream; charset=utf-8', record.account, started), 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
  let eur = 0;
  for await (const part of reply.body) {
    const text = part.toString('utf8');
    const at = text.indexOf('"usage":{');
    if (at === -1) {
      response.write(part);
      continue;
    }
    const start = text.lastIndexOf('data: ', at);
    const end = text.indexOf('\n\n', at);
    const event = JSON.parse(text.slice(start + 6, end));
    const settled = settle(record, model, event.usage);
    eur = settled.eur;
    event.environment_impact = settled.impact;
    event.billing_cost = settled.billing;
    response.write(`${text.slice(0, start)}data: ${JSON.stringify(event)}${text.slice(end)}`);
  }
  response.end();
  log(record, '/v1/chat/completions', model.upstream, 200, eur, started);
}

server.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${server.address().port}\n`));
process.once('SIGTERM', () => process.exit(0));
