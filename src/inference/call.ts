import { abortWatchOf, type CallContext, type ProviderAdapter } from '../providers/types.js';
import type { CallerAbort } from '../util/caller-abort.js';
import { tryRoutes, type Attempted } from '../routing/fallback.js';
import type { CandidateRoute } from '../routing/select.js';
import type { ModelHints } from './resolve.js';
import { timeUpstream, type InferenceScope } from './scope.js';

/** One attempt's route: its adapter and the call context built once for it. */
export interface RouteCall {
  candidate: CandidateRoute;
  adapter: ProviderAdapter;
  context: CallContext;
}

/** Per-call extras of the context (model hints; pass-through headers for native same-wire calls). */
export interface CallExtras extends ModelHints {
  passThroughHeaders?: Record<string, string>;
}

/**
 * Stage "call with fallback": tries the routes in order through routing/fallback.ts (backoff,
 * Retry-After, route health), building each attempt's adapter and CallContext from the scope and
 * booking the attempt as upstream time. What the attempt does with the adapter — a hub call, a
 * hub stream, or a native same-wire pass-through when the adapter has one — is the caller's
 * choice per route, so fallback may cross provider kinds.
 */
export function callWithFallback<T>(scope: InferenceScope, candidates: readonly CandidateRoute[], extras: CallExtras, attempt: (route: RouteCall) => Promise<T>): Promise<Attempted<T>> {
  return tryRoutes(
    candidates,
    abortWatchOf(scope),
    (candidate) =>
      timeUpstream(scope.timing, () => {
        const adapter = scope.deps.providers.get(candidate.providerId);
        const context = new AttemptContext(scope, candidate.route.upstream_model, extras);
        return attempt({ candidate, adapter, context });
      }),
    { health: scope.deps.routeHealth },
  );
}

/** A stream whose first item has arrived (or that ended at once). */
export interface PeekedStream<T> {
  iterator: AsyncIterator<T>;
  first: IteratorResult<T>;
}

/**
 * Opens a stream and waits for its first item. Called inside a fallback attempt, so a provider
 * that fails before sending anything still falls through to the next route; after the first
 * item the stream is committed (DESIGN §2).
 */
export async function peek<T>(stream: AsyncIterable<T>): Promise<PeekedStream<T>> {
  const iterator = stream[Symbol.asyncIterator]();
  return { iterator, first: await iterator.next() };
}

/** A stream read one batch per upstream read (ProviderAdapter.chatStreamBatches), its first batch in hand. */
export interface PeekedBatches<T> {
  batches: true;
  iterator: AsyncIterator<readonly T[]>;
  first: IteratorResult<readonly T[]>;
}

/** What the driver runs: items one at a time, or one batch per upstream read. */
export type StreamSource<T> = PeekedStream<T> | PeekedBatches<T>;

/** `peek` for a batched stream: the first batch is awaited inside the attempt, like the first chunk. */
export async function peekBatches<T>(stream: AsyncIterable<readonly T[]>): Promise<PeekedBatches<T>> {
  const iterator = stream[Symbol.asyncIterator]();
  return { batches: true, iterator, first: await iterator.next() };
}

/** Items already in hand as a stream source (a blueprint's direct answer enters the driver this way). */
export function peekedOf<T>(items: readonly T[]): PeekedStream<T> {
  let position = 0;
  const iterator: AsyncIterator<T> = {
    next: () => Promise.resolve(position < items.length ? { done: false, value: items[position++]! } : { done: true, value: undefined }),
    return: () => {
      position = items.length;
      return Promise.resolve({ done: true, value: undefined });
    },
  };
  return { iterator, first: position < items.length ? { done: false, value: items[position++]! } : { done: true, value: undefined } };
}

/**
 * One attempt's CallContext. A class, not an object literal with `get signal()` (V8 puts such a
 * literal in dictionary mode: a NameDictionary, AccessorPair and closure per attempt, kept for the
 * whole upstream call; issue 18 item 3). `signal` is read lazily from the scope, on the prototype:
 * a live request's AbortSignal is made only if an adapter asks for it.
 */
class AttemptContext implements CallContext {
  readonly abort: CallerAbort | undefined;
  // `declare`: no own property unless the caller set it (ES2022 fields would define each as undefined).
  declare readonly maxOutputTokens?: number | null;
  declare readonly reasoning?: boolean;
  declare readonly passThroughHeaders?: Record<string, string>;

  constructor(
    private readonly scope: InferenceScope,
    readonly upstreamModel: string,
    extras: CallExtras,
  ) {
    this.abort = scope.abort;
    // The keys the caller set, as the object spread this replaces copied them.
    const self = this as { -readonly [K in keyof CallExtras]: CallExtras[K] };
    if ('maxOutputTokens' in extras) self.maxOutputTokens = extras.maxOutputTokens;
    if ('reasoning' in extras) self.reasoning = extras.reasoning;
    if ('passThroughHeaders' in extras) self.passThroughHeaders = extras.passThroughHeaders;
  }

  get signal(): AbortSignal {
    return this.scope.signal;
  }

  /** Read through, like `signal`: an internal call draws its id only if an adapter reads it (vector-stores/internal-call.ts). */
  get requestId(): string {
    return this.scope.requestId;
  }
}
