import type { Ledger } from '../billing/ledger.js';
import { toDecimal } from '../billing/money.js';
import { GatewayError } from '../errors/gateway-error.js';
import { requestLogEntry, type InferenceDeps, type InferenceLog, type InferenceScope } from '../inference/index.js';
import type { AccountRepository } from '../store/accounts.js';
import type { RequestLog, RequestLogEntry } from '../store/request-log.js';
import type { CallerAbort } from '../util/caller-abort.js';
import type { IdGenerator } from '../util/ids.js';

/** What a model call on behalf of an account needs of the gateway: the pipeline's deps, the account, ids and the request log. */
export interface InternalCallDeps extends InferenceDeps {
  ledger: Pick<Ledger, 'preflight' | 'settle' | 'plan'>;
  store: { accounts: Pick<AccountRepository, 'get'>; requestLog: Pick<RequestLog, 'append'> };
  /** The live activity feed (dashboard, metrics): a line of its own is reported like any request. */
  activity: { recordRequest(entry: RequestLogEntry): void };
  ids: Pick<IdGenerator, 'next'>;
}

export interface InternalCallOptions {
  signal?: AbortSignal;
  /** The calling request's abort, cheap to hand down (util/caller-abort.ts): its AbortSignal is then made only if a stage reads `signal`. */
  abort?: CallerAbort;
  /** The request-log fields of the HTTP call this work belongs to; without them, a line of its own is written. */
  log?: InferenceLog;
  /** What the request-log line says (`endpoint` column) when the work has no call of its own. */
  endpoint: string;
  /** The key whose request caused this work (ingestion: the upload's), for its own log line. */
  keyId?: string | null;
}

/**
 * The scope of a model call made on behalf of an account off its own HTTP request (ingestion
 * embeddings, the search query's embedding, the search rerank stage): `run` goes through the
 * pipeline stages like the public endpoints (resolve + balance preflight, routes that serve the
 * operation, call with fallback, meter). The metered fields then go to the calling request's
 * log line, which carries the sum of all such calls, or — with no calling request — to a line
 * of their own, reported to the activity feed like any request.
 */
export async function callForAccount<T>(deps: InternalCallDeps, accountId: string, options: InternalCallOptions, run: (scope: InferenceScope) => Promise<T>): Promise<T> {
  const started = deps.clock.now();
  const account = deps.store.accounts.get(accountId);
  if (account === undefined) throw new GatewayError('AUTH_1008', `Account "${accountId}" no longer exists.`);
  const { name: planName, plan } = deps.ledger.plan(account);
  const log: InferenceLog = {};
  const scope = new InternalScope(deps, account, planName, plan, log, options);
  const result = await run(scope);
  if (options.log !== undefined) {
    addInto(options.log, log);
  } else {
    const now = deps.clock.now();
    const entry = requestLogEntry(now, scope.requestId, options.endpoint, { keyId: options.keyId ?? null, account: account.id }, log, 200, now - started);
    deps.store.requestLog.append(entry);
    deps.activity.recordRequest(entry);
  }
  return result;
}

/**
 * An internal call's InferenceScope. A class with `signal` on its prototype, made when first read:
 * a search's query embedding (local-embed) never reads it, and an AbortController per search was
 * ~1.5% of the event loop's search profile (issue 16). An object literal with a getter would be a
 * dictionary-mode object per call (issue 18's finding for the request scope).
 */
class InternalScope implements InferenceScope {
  readonly abort: CallerAbort | undefined;
  readonly timing = { startedAt: performance.now(), upstreamMs: 0 };
  private made: AbortSignal | undefined;
  private id: string | undefined;
  private caller: InferenceScope['principal'] | undefined;

  constructor(
    readonly deps: InternalCallDeps,
    readonly account: InferenceScope['account'],
    readonly planName: string,
    readonly plan: InferenceScope['plan'],
    readonly log: InferenceLog,
    private readonly options: InternalCallOptions,
  ) {
    this.abort = options.abort;
  }

  /** The key whose request caused the work, acting for the account with no scopes; made when first read (the embedding stages never read it, issue 16). */
  get principal(): InferenceScope['principal'] {
    this.caller ??= { keyId: this.options.keyId ?? '', account: this.account.id, scopes: [], vaultAccess: false };
    return this.caller;
  }

  /**
   * This call's id, drawn when first read: only a line of its own or an adapter that names its
   * answer reads it, not a search's query embedding logged on the search's line (issue 16).
   */
  get requestId(): string {
    this.id ??= this.deps.ids.next('req_');
    return this.id;
  }

  /** The caller's signal, else its abort's (made now), else one of its own that nothing aborts. */
  get signal(): AbortSignal {
    this.made ??= this.options.signal ?? this.options.abort?.signal ?? new AbortController().signal;
    return this.made;
  }
}

/**
 * Several calls on one request (embedding batches, the rerank stage): the calling line names the
 * last call's model and route and carries the sum of tokens, money, energy and carbon.
 */
function addInto(target: InferenceLog, call: InferenceLog): void {
  // Field by field in the order the object literal it replaces had them (no object per call, issue 16).
  target.model = call.model;
  target.provider = call.provider;
  target.route = call.route;
  target.paid_with = call.paid_with;
  target.input_tokens = (target.input_tokens ?? 0) + (call.input_tokens ?? 0);
  target.eur = sumDecimalStrings(target.eur, call.eur ?? '0');
  target.energy = sumDecimalStrings(target.energy, call.energy ?? '0');
  target.energy_kwh = (target.energy_kwh ?? 0) + (call.energy_kwh ?? 0);
  target.carbon_g_co2 = (target.carbon_g_co2 ?? 0) + (call.carbon_g_co2 ?? 0);
}

/** Money stays decimal (never floats): several calls on one request add up exactly. */
function sumDecimalStrings(previous: string | undefined, next: string): string {
  return previous === undefined ? next : toDecimal(previous).plus(toDecimal(next)).toFixed();
}
