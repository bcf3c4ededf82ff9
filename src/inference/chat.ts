import type { DirectAnswer } from '../blueprints/apply.js';
import type { OutputGuard } from '../blueprints/output-guard.js';
import type { CandidateRoute } from '../routing/select.js';
import { countChatPromptTokens } from '../tokens/tokenizer.js';
import type { ChatChunk, ChatRequest, ChatResponse, ChatUsage } from '../translate/chat/types.js';
import { abortWatchOf } from '../providers/types.js';
import type { GatewayError } from '../errors/gateway-error.js';
import { callWithFallback, peek, peekBatches, peekedOf, type CallExtras, type PeekedStream, type RouteCall, type StreamSource } from './call.js';
import { directChunks, directCompletion, type DirectMeta } from './direct.js';
import { committedFailure } from './failure.js';
import { consumptionOf, meterCall, type Metering } from './meter.js';
import type { Target } from './resolve.js';
import type { InferenceScope } from './scope.js';
import { driveStream, type StreamSink } from './stream-driver.js';
import { guardCompletion, RailguardTransform } from './transforms/railguards.js';
import { HubUsageTap } from './transforms/usage-tap.js';
import type { UsageTap } from './transforms/transform.js';

/** A hub call, ready to run: the shaped request, where it goes, and what blueprints decided. */
export interface ChatPlan {
  target: Target;
  request: ChatRequest;
  /** Output railguards of the request's blueprint. */
  outputGuard?: OutputGuard | undefined;
  /** Answered before any model call: this is the answer's chunk source instead of a provider. */
  direct?: DirectAnswer | undefined;
  /** Id, time and model name a direct answer carries. */
  directMeta?: DirectMeta | undefined;
  /** Native pass-through headers and the like, added to every attempt's context. */
  extras?: Partial<CallExtras>;
  /**
   * Runs inside the attempt just before a route is called through the hub (not natively): a
   * translation that cannot carry the request refuses here, so a native route can still serve.
   */
  beforeHub?: () => void;
}

/**
 * Native same-wire pass-through, per route: the call to make when this route's adapter speaks
 * the client's wire (Messages to an Anthropic-kind provider, Responses to an OpenAI Responses
 * provider), undefined to go through the hub. A capability of the call stage, not a second path:
 * fallback may cross from a native route to a translated one and back.
 */
export type NativeCall<N> = (route: RouteCall) => (() => Promise<N>) | undefined;

/** Who answered: the route (a direct answer is booked on the route that would have served). */
export interface Served {
  candidate: CandidateRoute;
  direct?: DirectAnswer | undefined;
}

export interface CompletedChat extends Served {
  response: ChatResponse;
  native?: undefined;
}

/** A native pass-through's answer, as the provider sent it. */
export interface CompletedNative<N> extends Served {
  native: N;
}

function directMeta(plan: ChatPlan): DirectMeta {
  return plan.directMeta ?? { id: 'chatcmpl-direct', created: 0, model: plan.target.resolved.requested, n: plan.request.n ?? 1 };
}

/**
 * Non-stream hub answer (stages call with fallback → railguards): the provider's completion, or
 * the blueprint's direct answer, with output railguards applied. Not metered yet — a caller that
 * runs several turns meters their sum once (`meterServed`).
 */
export async function completeChat(scope: InferenceScope, plan: ChatPlan): Promise<CompletedChat>;
export async function completeChat<N>(scope: InferenceScope, plan: ChatPlan, native: NativeCall<N>): Promise<CompletedChat | CompletedNative<N>>;
export async function completeChat<N>(scope: InferenceScope, plan: ChatPlan, native?: NativeCall<N>): Promise<CompletedChat | CompletedNative<N>> {
  if (plan.direct !== undefined) return { candidate: plan.target.candidates[0]!, direct: plan.direct, response: directCompletion(plan.direct, directMeta(plan)) };
  const { result, candidate } = await callWithFallback(scope, plan.target.candidates, { ...plan.target.hints, ...plan.extras }, async (route): Promise<{ native: N } | { hub: ChatResponse }> => {
    const nativeCall = native?.(route);
    if (nativeCall !== undefined) return { native: await nativeCall() };
    plan.beforeHub?.();
    return { hub: await route.adapter.chat({ ...plan.request, stream: false }, route.context) };
  });
  if ('native' in result) return { candidate, native: result.native };
  if (plan.outputGuard !== undefined) guardCompletion(result.hub, plan.outputGuard);
  return { candidate, response: result.hub };
}

/** Stages meter → log for whoever served. */
export function meterServed(scope: InferenceScope, served: Served, usage: ChatUsage): Metering {
  return meterCall(scope, served.candidate, consumptionOf(usage), served.direct);
}

/** How a driven hub stream ended. */
export interface DrivenChat {
  /** Reported by the upstream, else counted (HubUsageTap). */
  usage: ChatUsage;
  /** The failure as the client is told it (already logged), when the stream broke after it started. */
  failure: GatewayError | undefined;
  aborted: boolean;
}

/** A hub stream whose first chunk has arrived; `drive` runs it through the one driver. */
export interface OpenedChat extends Served {
  native?: undefined;
  stream: StreamSource<ChatChunk>;
  /**
   * Drives the stream into `sink` (the surface mapper and writer) through the usage tap and the
   * output railguards (`choices`: how many choices the surface shows; all blocked = stop early).
   */
  drive(sink: StreamSink<ChatChunk>, options?: { choices?: number; promptTokens?: () => number }): Promise<DrivenChat>;
}

/** A native pass-through stream whose first event has arrived; `drive` runs it through the one driver. */
export interface OpenedNative<E> extends Served {
  native: true;
  stream: PeekedStream<E>;
  /** Drives the provider's events into `sink` with the wire's usage tap (no hub transforms: nothing is translated). */
  drive(sink: StreamSink<E>, tap: UsageTap<E>): Promise<{ failure: GatewayError | undefined; aborted: boolean }>;
}

export type NativeStream<E> = (route: RouteCall) => (() => AsyncIterable<E>) | undefined;

/**
 * Streaming hub call (stages call with fallback → drive → transforms): the first chunk is awaited
 * inside the attempt, so a route that fails before any output falls through. A direct answer is
 * the chunk source instead, so every surface streams it through the same driver. With `native`,
 * a route whose adapter speaks the client's wire streams its own events instead (pass-through).
 */
export async function openChat(scope: InferenceScope, plan: ChatPlan, requestOverrides?: Partial<ChatRequest>): Promise<OpenedChat>;
export async function openChat<E>(scope: InferenceScope, plan: ChatPlan, requestOverrides: Partial<ChatRequest>, native: NativeStream<E>): Promise<OpenedChat | OpenedNative<E>>;
export async function openChat<E>(scope: InferenceScope, plan: ChatPlan, requestOverrides: Partial<ChatRequest> = {}, native?: NativeStream<E>): Promise<OpenedChat | OpenedNative<E>> {
  let served: Served & { stream: StreamSource<ChatChunk> };
  if (plan.direct !== undefined) {
    served = { candidate: plan.target.candidates[0]!, direct: plan.direct, stream: peekedOf(directChunks(plan.direct, directMeta(plan))) };
  } else {
    const request = { ...plan.request, ...requestOverrides, stream: true as const };
    const { result, candidate } = await callWithFallback(scope, plan.target.candidates, { ...plan.target.hints, ...plan.extras }, async (route): Promise<{ native: PeekedStream<E> } | { hub: StreamSource<ChatChunk> }> => {
      const nativeStream = native?.(route);
      if (nativeStream !== undefined) return { native: await peek(nativeStream()) };
      plan.beforeHub?.();
      // One batch per upstream read where the adapter can tell reads apart (issue 18 item 3).
      const { adapter, context } = route;
      return { hub: adapter.chatStreamBatches === undefined ? await peek(adapter.chatStream(request, context)) : await peekBatches(adapter.chatStreamBatches(request, context)) };
    });
    if ('native' in result) {
      const stream = result.native;
      return {
        candidate,
        native: true,
        stream,
        async drive(sink, tap) {
          const driven = await driveStream(abortWatchOf(scope), stream, sink, { tap });
          return { failure: driven.failure === undefined || driven.aborted ? undefined : committedFailure(scope, driven.failure), aborted: driven.aborted };
        },
      };
    }
    served = { candidate, stream: result.hub };
  }
  return {
    ...served,
    native: undefined,
    async drive(sink, options = {}) {
      const tap = new HubUsageTap();
      const transforms = plan.outputGuard === undefined || served.direct !== undefined ? [] : [new RailguardTransform(plan.outputGuard, options.choices ?? 1)];
      const driven = await driveStream(abortWatchOf(scope), served.stream, sink, { tap, transforms });
      const usage = tap.usage(options.promptTokens ?? (() => countChatPromptTokens(plan.request.messages)));
      const failure = driven.failure === undefined || driven.aborted ? undefined : committedFailure(scope, driven.failure);
      return { usage, failure, aborted: driven.aborted };
    },
  };
}
