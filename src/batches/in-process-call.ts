import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from '../app/context.js';
import type { Principal } from '../auth/authenticate.js';
import { requireScope } from '../auth/scopes.js';
import { GatewayError } from '../errors/gateway-error.js';
import { renderError } from '../errors/render.js';
import type { CallLog, RequestCall } from '../http/request-call.js';
import type { GatewayRoute } from '../http/routes.js';
import { appendLog } from '../http/request-log-line.js';

/**
 * Stands in for the node:http response of a live request: records what the endpoint handler
 * writes (status, headers, body) so the handler runs unchanged. Batch rows never stream, so the
 * handlers only call writeHead + end through http/respond.
 */
class CapturedResponse extends EventEmitter {
  statusCode = 200;
  headersSent = false;
  writableFinished = false;
  writableNeedDrain = false;
  destroyed = false;
  private readonly chunks: Buffer[] = [];

  writeHead(status: number, ..._headers: unknown[]): this {
    this.statusCode = status;
    this.headersSent = true;
    return this;
  }

  setHeader(): this {
    return this;
  }

  write(chunk: string | Buffer): boolean {
    this.chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    return true;
  }

  end(chunk?: string | Buffer): this {
    if (chunk !== undefined) this.write(chunk);
    this.headersSent = true;
    this.writableFinished = true;
    this.emit('finish');
    this.emit('close');
    return this;
  }

  destroy(): this {
    this.destroyed = true;
    this.emit('close');
    return this;
  }

  bodyText(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

export interface InProcessResult {
  status: number;
  /** The parsed JSON body the endpoint answered (success or error envelope). */
  body: unknown;
  requestId: string;
}

/**
 * Runs one request through an endpoint handler of the route table, in process: the same
 * validation, routing, capability checks, billing (preflight and settlement) and request log as
 * a live request, but no HTTP, no authentication (the batch was authorised at create) and no
 * per-minute rate limit (spec: batch requests sit outside it). The account is read fresh for each
 * call so balances apply as they move.
 */
export async function callInProcess(app: AppContext, route: GatewayRoute, principal: Principal, body: unknown, signal: AbortSignal): Promise<InProcessResult> {
  const startedAt = app.clock.now();
  const requestId = app.ids.next('req_');
  const response = new CapturedResponse();
  const log: CallLog = {};
  let call: RequestCall | undefined;
  try {
    const account = app.store.accounts.get(principal.account);
    if (account === undefined) throw new GatewayError('AUTH_1008', `The batch's account "${principal.account}" no longer exists.`);
    const { name: planName, plan } = app.ledger.plan(account);
    if (route.scope !== null) requireScope(principal.scopes, route.scope);
    call = {
      app,
      request: { headers: {}, method: route.method, url: route.path } as unknown as IncomingMessage,
      response: response as unknown as ServerResponse,
      requestId,
      params: {},
      query: new URLSearchParams(),
      principal,
      account,
      planName,
      plan,
      body,
      signal,
      headers: { 'x-request-id': requestId },
      log,
      timing: { startedAt: performance.now(), upstreamMs: 0 },
    };
    await route.handler(call);
    if (!response.writableFinished) throw new GatewayError('SYSTEM_9001', 'The endpoint finished without an answer.');
  } catch (error) {
    // A row abandoned by a stop (cancel, expiry, shutdown) is not a fault worth a log line.
    if (!signal.aborted && (!(error instanceof GatewayError) || error.code === 'SYSTEM_9001')) {
      app.logger.error('batch row failed unexpectedly', { request_id: requestId, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    }
    const rendered = renderError(error, route.dialect);
    log.error_code = (rendered.body as { error: { code: string } }).error.code;
    appendLog(app, requestId, route.path, call, log, rendered.status, app.clock.now() - startedAt, { keyId: principal.keyId, account: principal.account });
    return { status: rendered.status, body: rendered.body, requestId };
  }
  appendLog(app, requestId, route.path, call, log, response.statusCode, app.clock.now() - startedAt);
  return { status: response.statusCode, body: JSON.parse(response.bodyText()) as unknown, requestId };
}
