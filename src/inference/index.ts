/**
 * The inference pipeline (ARCHITECTURE.md "Request lifecycle", principle 11; issue 18). Every
 * model call — each surface, blueprint direct answers, batch rows, internal calls — runs the same
 * stages, each in its own module:
 *
 *  1. scope      `InferenceScope` (scope.ts): a plain object — principal, account and plan,
 *                requestId, abort signal, the request-log fields, timing, and narrow deps. Build
 *                it from a live request with `inferenceScope(call)` (http/request-call.ts), or by
 *                hand for a batch row or an internal call; never pass HTTP objects in.
 *  2. resolve    `resolveTarget(scope, model, types, {order, preset})` (resolve.ts): catalog
 *     +preflight resolution, routes ranked with live health, then the balance preflight
 *                (preflight.ts). `routesServing` keeps the routes whose adapter has an operation
 *                (`embed`, `rerank`, …). `checkChatCapabilities` is the hub request's preflight.
 *  3. call       `callWithFallback(scope, candidates, hints, ({adapter, context, candidate}) => …)`
 *                (call.ts): routing/fallback over the routes, the CallContext built per attempt,
 *                the attempt booked as upstream time. Streams: `peek(adapter.chatStream(…))`
 *                inside the attempt, so a route failing before its first chunk falls through.
 *                Native same-wire pass-through is the attempt picking `adapter.messages` /
 *                `adapter.responses` when the route has it — a capability, not a second path.
 *  4. drive      `driveStream(signal, peeked, sink, {tap, transforms})` (stream-driver.ts): the
 *                one loop for every stream (backpressure, abort, early stop, hold-back flush);
 *                transforms/: output railguards, the usage tap (counts when upstream reports none).
 *  5. meter+log  `meterCall(scope, candidate, consumption)` (meter.ts): price, ledger settlement,
 *                energy impact, and the request-log fields (scope.log); `committedFailure`
 *                (failure.ts) turns a mid-stream failure into the error the client is told.
 *
 * Hub chat in one call each (chat.ts): `completeChat` (JSON) and `openChat` → `drive(sink)`
 * (stream), both taking a `ChatPlan` (target, shaped request, blueprint output guard or direct
 * answer), then `meterServed`. Non-chat operations (embeddings, rerank, images, audio) use
 * stages 2, 3 and 5 directly:
 *
 *     const target = resolveTarget(scope, body.model, ['embeddings'], { order: 'price' });
 *     const { result, candidate } = await callWithFallback(scope, routesServing(scope, target.candidates, 'embed', 'embeddings'), target.hints,
 *       ({ adapter, context }) => adapter.embed!(request, context));
 *     const metering = meterCall(scope, candidate, { inputTokens: result.promptTokens, outputTokens: 0, cachedTokens: 0, images: 0, audioMinutes: 0 });
 *
 * The pipeline knows hub types, catalog, routing, billing and providers — nothing of http/ or
 * of any surface (endpoints map hub results to their wire and write them).
 */
export { callWithFallback, peek, peekBatches, peekedOf, type CallExtras, type PeekedBatches, type PeekedStream, type RouteCall, type StreamSource } from './call.js';
export { completeChat, meterServed, openChat, type ChatPlan, type CompletedChat, type CompletedNative, type DrivenChat, type NativeCall, type NativeStream, type OpenedChat, type OpenedNative, type Served } from './chat.js';
export { directChunks, directCompletion, type DirectMeta } from './direct.js';
export { committedFailure } from './failure.js';
export { requestLogEntry, type LoggedCaller } from './log.js';
export { billingFields, consumptionOf, meterCall, type Metering } from './meter.js';
export { checkChatCapabilities, preflightBalance } from './preflight.js';
export { modelReasons, resolveTarget, routesServing, type ModelHints, type Target } from './resolve.js';
export { timeUpstream, type CallTiming, type InferenceDeps, type InferenceLog, type InferenceScope } from './scope.js';
export { driveStream, type DriveOptions, type DriveResult, type StreamSink } from './stream-driver.js';
export { guardCompletion, RailguardTransform } from './transforms/railguards.js';
export type { StreamTransform, UsageTap } from './transforms/transform.js';
export { HubUsageTap } from './transforms/usage-tap.js';
export { MessageEventsTap } from './transforms/message-events-tap.js';
export { FINAL_RESPONSE_EVENTS, ResponseEventsTap } from './transforms/response-events-tap.js';
