import { createServer, IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { AppContext } from '../app/context.js';
import { authenticate } from '../auth/authenticate.js';
import { setRateLimitHeaders } from '../auth/rate-limit.js';
import { requireScope } from '../auth/scopes.js';
import { GatewayError } from '../errors/gateway-error.js';
import { renderError, type ErrorDialect } from '../errors/render.js';
import { BodyTooLargeError, readJsonBody } from './body.js';
import { checkHost, corsHeaders } from './guards.js';
import { Exchange, ExchangeResponse } from './exchange.js';
import { copyHeaders, LiveRequestCall, overheadMs, type CallLog, type CallTiming } from './request-call.js';
import { echoableHeaderValue, writeHeadSafely } from './header-value.js';
import { sendJson } from './respond.js';
import { Router } from './router.js';
import { PUBLIC_ROUTES, type GatewayRoute } from './routes.js';
import { requestLogEntry } from '../inference/log.js';
import { CallerAbort } from '../util/caller-abort.js';

export interface RunningServer {
  server: Server;
  url: string;
  port: number;
  host: string;
  /** Stop accepting, let in-flight requests finish (bounded), then close every socket. */
  close(graceMs: number): Promise<void>;
}

/** node:http server over the route table: guards, routing, auth, scopes, rate limits, body, errors, request log. */
export async function startHttpServer(app: AppContext, routes: readonly GatewayRoute[], port: number, host: string): Promise<RunningServer> {
  const router = new Router(routes);
  const sockets = new Set<Socket>();
  let inFlight = 0;
  let draining = false;
  let drained: (() => void) | null = null;
  app.activity.watchInFlight(() => inFlight);

  // One 'close' listener, one 'error' listener each, shared by every exchange: they find the
  // exchange through `this` (the response), so nothing is allocated per request to listen
  // (issue 18 item 3). A close does three things: the in-flight count, the client-gone abort, the
  // request-log line of an answer that was still leaving when its handler returned.
  function exchangeClosed(this: ExchangeResponse): void {
    const exchange = this.exchange;
    if (exchange === undefined) return;
    this.exchange = undefined;
    inFlight -= 1;
    if (draining && inFlight === 0) drained?.();
    if (exchange.abort !== undefined && !this.writableFinished) exchange.abort.abort(new Error('client disconnected'));
    if (exchange.logOnClose) writeLogLine(exchange, this.statusCode);
  }
  // Containment (issue 14): an 'error' on either stream (a reset socket, a write after end)
  // ends that one exchange; with no listener Node would rethrow it and stop the process.
  function ignoreRequestError(): void {}
  function responseFailed(this: ServerResponse, error: Error): void {
    app.logger.warn('response stream failed', { error: String(error) });
    this.destroy();
  }

  const server = createServer<typeof IncomingMessage, typeof ExchangeResponse>({ keepAliveTimeout: 65_000, ServerResponse: ExchangeResponse }, (request, response) => {
    inFlight += 1;
    const arrivedAt = app.clock.now();
    const requestId = app.ids.next('req_');
    const target = splitTarget(request.url);
    response.exchange = new Exchange(arrivedAt, requestId, { 'x-request-id': requestId }, target.pathname);
    response.on('close', exchangeClosed);
    request.on('error', ignoreRequestError);
    response.on('error', responseFailed);
    handle(request, response, response.exchange, target.search).catch((error: unknown) => failSafe(response, error, 'gateway', {}));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  // Requests Node's parser refuses (control bytes in a header, a malformed request line, a lying
  // content-length) never reach a handler: they still get the spec's envelope, then the close.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(malformedRequestAnswer(error.code, app.ids.next('req_')));
  });
  // An Expect other than 100-continue: Node's own 417 has no body; this one has the envelope.
  server.on('checkExpectation', (request, response) => {
    request.on('error', () => undefined);
    response.on('error', () => response.destroy());
    sendJson(response, 417, lastResortEnvelope('VALIDATION_4005', 'Unsupported Expect header: only "100-continue" is understood.'), { 'x-request-id': app.ids.next('req_'), connection: 'close' });
  });
  // CONNECT is no route here: answered like any unknown method instead of a silent close.
  server.on('connect', (_request, socket) => {
    socket.on('error', () => undefined);
    socket.end(rawAnswer(405, 'Method Not Allowed', lastResortEnvelope('RESOURCE_5405', 'CONNECT is not allowed; the API lives under /v1 (e.g. POST /v1/chat/completions).'), app.ids.next('req_')));
  });

  // Host headers already found acceptable (DESIGN §6 rebinding guard): a keep-alive client sends
  // the same one on every request, so the parse and checks run once per distinct value.
  const acceptedHosts = new Set<string>();
  function checkHostOnce(request: IncomingMessage): void {
    const header = request.headers.host;
    if (header !== undefined && acceptedHosts.has(header)) return;
    checkHost(request, host);
    if (header !== undefined && acceptedHosts.size < 64) acceptedHosts.add(header);
  }

  async function handle(request: IncomingMessage, response: ExchangeResponse, exchange: Exchange, search: string): Promise<void> {
    const { requestId, headers, endpoint: pathname } = exchange;
    try {
      checkHostOnce(request);
      if (request.headers.origin !== undefined) Object.assign(headers, corsHeaders(request, app.config.server.cors_origins));
      if (request.method === 'OPTIONS' && request.headers.origin !== undefined) {
        writeHeadSafely(response, 204, {
          ...headers,
          'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
          'access-control-allow-headers': echoableHeaderValue(request.headers['access-control-request-headers'], 1024) ?? 'authorization, content-type, x-api-key',
          'access-control-max-age': '600',
        });
        response.end();
        return;
      }
      if (draining) throw new GatewayError('SYSTEM_9003');
      const publicHandler = PUBLIC_ROUTES[`${request.method} ${pathname}`];
      if (publicHandler !== undefined) return await publicHandler(response, headers, app.metrics);
      const match = router.match(request.method ?? 'GET', pathname);
      if (match.kind === 'not_found') throw new GatewayError('RESOURCE_5404', `No endpoint at ${request.method} ${pathname}. The API lives under /v1 (e.g. POST /v1/chat/completions).`);
      if (match.kind === 'method_not_allowed') {
        headers['allow'] = match.allowed.join(', ');
        throw new GatewayError('RESOURCE_5405', `${request.method} is not allowed on ${pathname}; use ${match.allowed.join(' or ')}.`);
      }
      const route = match.route;
      exchange.dialect = route.dialect;
      exchange.endpoint = route.path;
      const principal = authenticate(request.headers, app.store.keys, app.clock.now());
      exchange.keyId = principal.keyId;
      exchange.account = principal.account;
      const account = app.store.accounts.get(principal.account);
      if (account === undefined) throw new GatewayError('AUTH_1008', `Invalid API key: its account "${principal.account}" no longer exists.`);
      const { name: planName, plan } = app.ledger.plan(account);
      const limited = app.rateLimiter.take(principal.keyId, plan.requests_per_minute, app.clock.now());
      // In memory the answer is immediate (no promise, no await); with Redis it is a round trip.
      setRateLimitHeaders(headers, limited instanceof Promise ? await limited : limited);
      if (route.scope !== null) requireScope(principal.scopes, route.scope);
      // Spec "Authentication" §7: vector stores also need the key's vault access flag.
      if (route.vault === true && !principal.vaultAccess) throw new GatewayError('AUTH_1016');
      const body = route.body === 'json' ? await readJsonBody(request, app.config.server.max_body_bytes) : undefined;
      // The client-gone abort: an AbortSignal is made only for an endpoint that reads `signal`.
      const abort = new CallerAbort();
      exchange.abort = abort;
      await route.handler(
        new LiveRequestCall({ app, request, response, requestId, params: match.params, search, principal, account, planName, plan, body, abort, headers, log: exchange.log, timing: exchange }),
      );
    } catch (error) {
      writeError(response, error, exchange.dialect, headers, request, exchange.log, exchange);
    } finally {
      // An answer still leaving (a stream's last bytes, a slow reader) is logged when it closes.
      if (response.writableFinished || response.destroyed) writeLogLine(exchange, response.statusCode);
      else exchange.logOnClose = true;
    }
  }

  /** The request-log line of a finished exchange, and its report to the dashboard feed. */
  function writeLogLine(exchange: Exchange, status: number): void {
    exchange.logOnClose = false;
    try {
      const now = app.clock.now();
      const entry = requestLogEntry(now, exchange.requestId, exchange.endpoint, exchange, exchange.log, status, now - exchange.arrivedAt);
      app.store.requestLog.append(entry);
      app.activity.recordRequest(entry);
    } catch (error) {
      app.logger.error('request log append failed', { request_id: exchange.requestId, error: String(error) });
    }
  }

  /** Answers a failed request with its envelope. Cannot throw: if answering fails too, failSafe ends the request. */
  function writeError(response: ServerResponse, error: unknown, dialect: ErrorDialect, headers: Record<string, string>, request: IncomingMessage, log: CallLog, timing: CallTiming): void {
    if (!(error instanceof GatewayError) || error.code === 'SYSTEM_9001') {
      app.logger.error('unhandled error', { error: describe(error), cause: describe((error as Error | undefined)?.cause) });
    }
    try {
      const rendered = renderError(error, dialect);
      log.error_code = (rendered.body as { error: { code: string } }).error.code;
      if (response.headersSent) {
        // A stream already started: the endpoint owns the mid-stream error; make sure nothing hangs.
        response.end();
        return;
      }
      // An error's own headers may come from an upstream (Retry-After): repeated only when sane.
      const errorHeaders: Record<string, string> = {};
      for (const [name, value] of Object.entries(rendered.headers)) {
        const safe = echoableHeaderValue(value);
        if (safe !== undefined) errorHeaders[name] = safe;
      }
      const extra = copyHeaders(copyHeaders({}, headers), errorHeaders);
      extra['x-igw-overhead-ms'] = overheadMs(timing);
      if (error instanceof BodyTooLargeError) {
        // Do not read the rest of an oversized body; answer and close so nothing is left hanging.
        extra['connection'] = 'close';
        request.resume();
      }
      sendJson(response, rendered.status, rendered.body, extra);
    } catch (failure) {
      log.error_code = 'SYSTEM_9001';
      failSafe(response, failure, dialect, headers);
    }
  }

  /**
   * The last resort when answering itself failed (the renderer threw, a head could not be
   * written): a fixed 500 SYSTEM_9001 envelope when nothing was sent yet, else the connection is
   * closed. Built without the renderer or caller headers, so it has nothing left that can throw.
   */
  function failSafe(response: ServerResponse, error: unknown, dialect: ErrorDialect, headers: Record<string, string>): void {
    try {
      app.logger.error('error response failed', { error: describe(error) });
    } catch {
      // A logger that throws must not stop the answer below.
    }
    try {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      const text = JSON.stringify(lastResortBody(dialect));
      response.writeHead(500, {
        ...(headers['x-request-id'] === undefined ? {} : { 'x-request-id': headers['x-request-id'] }),
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(text),
        connection: 'close',
      });
      response.end(text);
    } catch {
      response.destroy();
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    server,
    url: `http://${urlHost}:${address.port}`,
    port: address.port,
    host: address.address,
    async close(graceMs: number) {
      draining = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (inFlight > 0) {
        await Promise.race([new Promise<void>((resolve) => (drained = resolve)), new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref())]);
      }
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

/** The answer to a request Node's HTTP parser refused, written straight to the socket. */
function malformedRequestAnswer(parserCode: string | undefined, requestId: string): string {
  if (parserCode === 'HPE_HEADER_OVERFLOW') {
    return rawAnswer(431, 'Request Header Fields Too Large', lastResortEnvelope('VALIDATION_4005', 'The request headers are too large.'), requestId);
  }
  if (parserCode === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return rawAnswer(408, 'Request Timeout', lastResortEnvelope('VALIDATION_4005', 'The request was not received in time.'), requestId);
  }
  const detail = parserCode === undefined ? '' : ` (${parserCode})`;
  return rawAnswer(400, 'Bad Request', lastResortEnvelope('VALIDATION_4005', `Malformed HTTP request${detail}: check the request line, the header names and values (visible ASCII) and the body framing.`), requestId);
}

function rawAnswer(status: number, reason: string, body: unknown, requestId: string): string {
  const text = JSON.stringify(body);
  return `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\nx-request-id: ${requestId}\r\nconnection: close\r\n\r\n${text}`;
}

/** A gateway-dialect envelope built without the renderer (no route, so no dialect, is known). */
function lastResortEnvelope(code: string, message: string): unknown {
  return { error: { code, message } };
}

/** The SYSTEM_9001 envelope of each dialect, spelled out so answering it needs no renderer. */
function lastResortBody(dialect: ErrorDialect): unknown {
  const message = 'Internal error; the gateway log has the details.';
  if (dialect === 'messages') return { type: 'error', error: { type: 'api_error', code: 'SYSTEM_9001', message } };
  if (dialect === 'vector-store') return { error: { message, type: 'server_error', param: null, code: 'SYSTEM_9001' } };
  return { error: { code: 'SYSTEM_9001', message } };
}

/** A thrown value as one log string, whatever it is (even an object whose toString throws). */
function describe(value: unknown): string {
  try {
    return value instanceof Error ? (value.stack ?? value.message) : String(value ?? '');
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/**
 * Path and query string of the request target. Origin-form targets ("/v1/x?y") are split by hand,
 * which costs far less than a full URL parse per request; anything else goes through URL. The
 * query is parsed only when an endpoint reads it (LiveRequestCall.query).
 */
function splitTarget(target: string | undefined): { pathname: string; search: string } {
  const raw = target ?? '/';
  if (!raw.startsWith('/')) {
    // Absolute-form or odd targets: one that is no URL at all routes nowhere (404), not a throw.
    if (!URL.canParse(raw, 'http://gateway.local')) return { pathname: raw, search: '' };
    const url = new URL(raw, 'http://gateway.local');
    return { pathname: url.pathname, search: url.search };
  }
  const question = raw.indexOf('?');
  return question === -1 ? { pathname: raw, search: '' } : { pathname: raw.slice(0, question), search: raw.slice(question + 1) };
}
