import type { Config } from '../config/load.js';
import { echoableHeaderValue } from '../http/header-value.js';
import type { CallLog } from '../http/request-call.js';
import { checkChatCapabilities, resolveTarget, type ChatPlan, type InferenceScope, type Served } from '../inference/index.js';
import type { ChatRequest } from '../translate/chat/types.js';
import { inlineImageUrls, type InlineImageOptions } from './shared/inline-images.js';
import { parseOpenRequest } from './validation/parse.js';
import { IgnoredParams } from './shared/ignored-params.js';
import { applyBlueprintFields } from '../blueprints/chat.js';
import type { VaultAccess } from '../blueprints/load.js';
import { chatCompletionSchema, type ChatCompletionBody } from './validation/chat-schema.js';
import { NOT_FOR_THE_HUB, refuseUnservableChatFields, unhonouredChatFields } from './chat-completions-fields.js';
import { hubReasoningEffort } from '../translate/chat/reasoning-effort.js';

/**
 * The validated body as a hub request: fields the hub does not carry (chat-completions-fields.ts)
 * and nulls dropped, the reasoning effort at its nearest hub level, an allowed_tools choice as
 * just those tools and its mode.
 */
export function toHubRequest(body: ChatCompletionBody): ChatRequest {
  const hub: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (value === null || value === undefined) continue;
    if (NOT_FOR_THE_HUB.has(key)) continue;
    hub[key] = value;
  }
  if (body.reasoning_effort != null) {
    const effort = hubReasoningEffort(body.reasoning_effort);
    if (effort === undefined) delete hub['reasoning_effort'];
    else hub['reasoning_effort'] = effort;
  }
  const choice = body.tool_choice;
  if (typeof choice === 'object' && choice.type === 'allowed_tools') {
    const allowed = new Set(choice.allowed_tools.tools.map((entry) => entry.function.name));
    hub['tools'] = (body.tools ?? []).filter((tool) => allowed.has(tool.function.name));
    hub['tool_choice'] = choice.allowed_tools.mode;
  }
  if (body.stream_options?.include_obfuscation !== undefined) {
    const { include_obfuscation: _obfuscation, ...rest } = body.stream_options;
    hub['stream_options'] = rest;
  }
  return hub as unknown as ChatRequest;
}

/** What the chat surface needs besides the scope: server settings and the caller's vault access. */
export interface ChatSurfaceEnv {
  server: Config['server'];
  access: VaultAccess;
}

/** An accepted request, as far as it goes before any model call. */
export interface PreparedChat {
  body: ChatCompletionBody;
  plan: ChatPlan;
  ignored: IgnoredParams;
  /** Unknown top-level fields sent along in the hub request (`unknown_fields`). */
  unknown: readonly string[];
  /** The client's request_id, when it is a sane header value (echoed as x-client-request-id, issue 14). */
  clientRequestId: string | undefined;
}

/**
 * Unknown fields at the top of the body travel in the hub request for a provider that speaks
 * the chat wire; unknown fields inside messages or tools cannot (the hub rebuilds those), so
 * they are dropped and named on every route.
 */
function forwardableUnknownFields(raw: unknown, unknownFields: readonly string[]): { fields: Record<string, unknown> | undefined; forwarded: string[]; dropped: string[] } {
  const source = raw as Record<string, unknown>;
  const forwarded = unknownFields.filter((field) => /^[A-Za-z0-9_$-]+$/.test(field));
  const dropped = unknownFields.filter((field) => !forwarded.includes(field));
  const fields = forwarded.length === 0 ? undefined : Object.fromEntries(forwarded.map((field) => [field, source[field]]));
  return { fields, forwarded, dropped };
}

/**
 * Parse → hub → pipeline stages up to the call: validation (DESIGN §5: unknown names pass,
 * refused with server.strict_params; declared fields igw cannot honour are refused by name when
 * their loss would change the answer, else dropped and named), blueprints and skills, model and
 * routes, balance and capability preflight, image URLs inlined.
 */
export async function prepareChat(scope: InferenceScope, env: ChatSurfaceEnv, raw: unknown): Promise<PreparedChat> {
  const { server } = env;
  const { data: body, unknownFields } = parseOpenRequest(chatCompletionSchema, raw, server.strict_params);
  refuseUnservableChatFields(body);
  const ignored = new IgnoredParams().add(...unhonouredChatFields(body));
  const forwardable = forwardableUnknownFields(raw, unknownFields);
  // Blueprints and skills shape the request (and may answer it) before anything goes upstream.
  const shaped = await applyBlueprintFields(env.access, body, { ...toHubRequest(body), ...(forwardable.fields === undefined ? {} : { unknown_fields: forwardable.fields }) });
  const target = resolveTarget(scope, shaped.request.model, ['chat'], { preset: body.preset });
  ignored.add(...forwardable.dropped);
  scope.log.stream = body.stream === true;
  const prepared = { body, ignored, unknown: forwardable.forwarded, clientRequestId: echoableHeaderValue(body.request_id) };
  if (shaped.direct !== undefined) {
    const directMeta = { id: `chatcmpl-${scope.requestId}`, created: Math.floor(scope.deps.clock.now() / 1000), model: target.resolved.requested, n: body.n ?? 1 };
    return { ...prepared, plan: { target, request: shaped.request, direct: shaped.direct, directMeta } };
  }
  let request: ChatRequest = shaped.request;
  // Spec: reasoning_effort is "ignored by non-reasoning models"; forwarding it would make
  // strict upstreams refuse the whole request.
  if (target.resolved.model.reasoning_type === 'non_reasoning' && request.reasoning_effort !== undefined) {
    delete request.reasoning_effort;
    ignored.add('reasoning_effort');
  }
  checkChatCapabilities(target.resolved.id, target.resolved.model, request);
  // Spec: image URLs are fetched and re-encoded server side (SSRF rules in net/safe-fetch), after
  // the vision check so a model without vision is refused before anything is fetched.
  request = await inlineImageUrls(request, new ScopedImageOptions(server, scope));
  return { ...prepared, plan: { target, request, outputGuard: shaped.outputGuard } };
}

/**
 * Names what the call dropped once the answer's source is known. The unknown top-level fields
 * reach a provider of kind `openai` as sent (the chat wire is its own); any other provider
 * translates and never sees them — nor does a blueprint's direct answer — so they are named too.
 */
export function reportIgnored(call: { headers?: Record<string, string>; log: CallLog }, prepared: PreparedChat, served: Served): void {
  if (served.direct !== undefined || served.candidate.provider.kind !== 'openai') prepared.ignored.add(...prepared.unknown);
  prepared.ignored.report(call);
}

/**
 * The image fetch settings for one request. A class, not a literal with a getter: V8 keeps such a
 * literal as a slow dictionary object, one per request (issue 18, what survives a scavenge). The
 * scope's AbortSignal is made only when read, i.e. when the request has image URLs to fetch.
 */
class ScopedImageOptions implements InlineImageOptions {
  readonly allowPrivate: boolean;
  readonly maxBytes: number;
  readonly timeoutMs: number;

  constructor(
    server: Config['server'],
    private readonly scope: InferenceScope,
  ) {
    this.allowPrivate = server.allow_private_urls;
    this.maxBytes = server.image_fetch_max_bytes;
    this.timeoutMs = server.image_fetch_timeout_ms;
  }

  get signal(): AbortSignal {
    return this.scope.signal;
  }
}
