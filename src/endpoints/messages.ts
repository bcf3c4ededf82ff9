import type { Config } from '../config/load.js';
import { GatewayError, isGatewayError } from '../errors/gateway-error.js';
import { inferenceScope, responseHeaders, type RequestCall } from '../http/request-call.js';
import { sendJson } from '../http/respond.js';
import { billingFields, checkChatCapabilities, completeChat, meterServed, resolveTarget, type ChatPlan, type InferenceScope } from '../inference/index.js';
import type { NativeMessagesResult } from '../providers/types.js';
import { chatToMessages } from '../translate/messages/chat-to-messages.js';
import { messagesToChat } from '../translate/messages/messages-to-chat.js';
import { toNativeMessagesBody } from '../translate/messages/native-request.js';
import type { MessagesRequest } from '../translate/messages/types.js';
import { requireCompatVersion } from './messages-count-tokens.js';
import { inlineImageUrls } from './shared/inline-images.js';
import { messagesSchema, parseMessagesBody, toMessagesRequest } from './validation/messages-schema.js';
import { IgnoredParams } from './shared/ignored-params.js';
import { planMessagesTranslation } from '../translate/messages/translation-plan.js';
import { applyBlueprintFields } from '../blueprints/chat.js';
import { splitBlueprintFields, usesBlueprints } from '../blueprints/load.js';
import { blueprintAccess } from './shared/blueprint-access.js';
import { streamMessages } from './messages-stream.js';
import type { PreparedMessages, Translation } from './messages-prepared.js';
import { prepareMessagesMcp, runMcpTurns } from './messages-mcp.js';
import { toMessagesUsage } from '../translate/messages/usage.js';

/**
 * Spec model mapping: a model string containing (case-insensitive) a tier name runs that tier's
 * configured model (config.message_tiers); any other string is a catalog model id, used as is.
 * An exact catalog id wins, so a model whose own id contains a tier name stays reachable.
 */
export function mapMessagesModel(requested: string, config: Pick<Config, 'message_tiers' | 'models'>): string {
  if (config.models[requested] !== undefined) return requested;
  const lower = requested.toLowerCase();
  // Longest tier name first, so "opus-max" wins over "opus" when both are configured.
  const tiers = Object.entries(config.message_tiers).sort(([a], [b]) => b.length - a.length);
  for (const [tier, modelId] of tiers) if (lower.includes(tier.toLowerCase())) return modelId;
  return requested;
}

/** An image problem found on the hub request, re-worded to name the client's block (messages[i].content[j]). */
function renamedImageField(error: unknown, imageFields: ReadonlyMap<string, string>): unknown {
  if (!isGatewayError(error) || typeof error.details?.['field'] !== 'string') return error;
  const hubField = error.details['field'];
  const block = imageFields.get(hubField);
  if (block === undefined) return error;
  const field = `${block}.source`;
  return new GatewayError(error.code, `Invalid content block ${block}: ${error.message.split(`"${hubField}"`).join(`"${field}"`)}`, { ...error.details, field, block }, { cause: error.cause });
}

/**
 * Parse → hub → pipeline stages up to the call. Per route: a provider that speaks the Messages
 * API natively gets the client's body as sent (pass-through, unknown fields and the
 * `anthropic-beta` header included); any other goes through the chat hub, where the fields the
 * hub cannot carry are dropped and named in `igw-ignored-params`, or refused by name when their
 * loss would change the answer (DESIGN §5, translation-plan.ts). Fallback may cross kinds.
 */
async function prepareMessages(call: RequestCall, scope: InferenceScope): Promise<PreparedMessages> {
  const { server } = call.app.config;
  const parsed = parseMessagesBody(messagesSchema, call.body, server.strict_params);
  const { fields, rest: body } = splitBlueprintFields(parsed.data);
  const messagesRequest = toMessagesRequest(body);
  const target = resolveTarget(scope, mapMessagesModel(body.model, call.app.config), ['chat']);
  scope.log.model = body.model;
  const translation = translationOf(messagesRequest, parsed.unknownFields, target.hints.reasoning === true);
  const imageFields = new Map<string, string>();
  const hubRequest = messagesToChat(messagesRequest, target.resolved.id, imageFields);
  if (target.resolved.model.reasoning_type === 'non_reasoning') delete hubRequest.reasoning_effort;
  // Blueprints and skills shape the hub request (and may answer it); a shaped request always goes through the hub.
  const viaHub = usesBlueprints(fields);
  if (viaHub) translation.enter(call);
  const shaped = await applyBlueprintFields(blueprintAccess(call), fields, hubRequest);
  scope.log.stream = body.stream === true;
  // Native pass-through forwards what the client sent (unknown fields too), not the parsed copy.
  const clientBody = clientMessagesBody(call.body);
  const extras = { passThroughHeaders: passThroughHeaders(call) };
  const prepared = { body, messagesRequest, clientBody, translation, viaHub };
  if (shaped.direct !== undefined) {
    const directMeta = { id: `chatcmpl-${scope.requestId}`, created: Math.floor(scope.deps.clock.now() / 1000), model: body.model, n: 1 };
    return { ...prepared, plan: { target, request: shaped.request, direct: shaped.direct, directMeta, extras } };
  }
  let request = shaped.request;
  checkChatCapabilities(target.resolved.id, target.resolved.model, request);
  try {
    request = await inlineImageUrls(request, { allowPrivate: server.allow_private_urls, maxBytes: server.image_fetch_max_bytes, timeoutMs: server.image_fetch_timeout_ms, signal: scope.signal });
  } catch (error) {
    throw renamedImageField(error, imageFields);
  }
  return { ...prepared, plan: { target, request, outputGuard: shaped.outputGuard, extras, beforeHub: () => translation.check() } };
}

/** POST /v1/messages (spec "POST /v1/messages"): parse → pipeline → surface mapper → writer. */
export async function handleMessages(call: RequestCall): Promise<void> {
  requireCompatVersion(call);
  const scope = inferenceScope(call);
  const prepared = await prepareMessages(call, scope);
  if (prepared.body.stream === true) return streamMessages(call, scope, prepared);

  const { body } = prepared;
  // mcp_servers on a route through the hub: igw lists and runs them (messages-mcp.ts).
  const mcp = await prepareMessagesMcp(call, prepared.plan, body.mcp_servers, prepared.viaHub);
  const plan = mcp?.plan ?? prepared.plan;
  const nativeBody = toNativeMessagesBody(prepared.clientBody, plan.target.resolved.id, false);
  const first = await completeChat<NativeMessagesResult>(scope, plan, ({ adapter, context }) =>
    adapter.messages !== undefined && !prepared.viaHub ? () => adapter.messages!(nativeBody, context) : undefined,
  );
  const turns = mcp === undefined || first.native !== undefined || first.direct !== undefined ? undefined : await runMcpTurns(scope, mcp, first);
  const answered = turns?.final ?? first;
  if (answered.native === undefined && answered.direct === undefined) prepared.translation.enter(call);
  const metering = meterServed(scope, answered, answered.native === undefined ? (turns?.usage ?? answered.response.usage) : answered.native.usage);
  const translated = answered.native === undefined ? chatToMessages(answered.response, { model: body.model, ...(body.stop_sequences === undefined ? {} : { stopSequences: body.stop_sequences }) }) : undefined;
  if (translated !== undefined && turns !== undefined) {
    translated.content = [...turns.leading, ...translated.content];
    translated.usage = toMessagesUsage(turns.usage);
  }
  const message = translated ?? { ...answered.native!.body, model: body.model };
  sendJson(call.response, 200, { ...message, ...billingFields(metering) }, responseHeaders(call));
}

function translationOf(request: MessagesRequest, unknownFields: readonly string[], reasoning: boolean): Translation {
  const plan = planMessagesTranslation(request, { reasoning });
  const ignored = new IgnoredParams().add(...unknownFields, ...plan.ignored);
  return {
    check() {
      if (plan.refusal !== undefined) throw plan.refusal;
    },
    enter(call) {
      this.check();
      ignored.report(call);
    },
  };
}

/** The client's own body minus nothing: validated already, so its known fields are sound. */
function clientMessagesBody(body: unknown): MessagesRequest {
  return body as MessagesRequest;
}

/** DESIGN §5: the client's `anthropic-beta` flags go with its body on native pass-through. */
function passThroughHeaders(call: RequestCall): Record<string, string> {
  const beta = call.request.headers['anthropic-beta'];
  const value = Array.isArray(beta) ? beta.join(',') : beta;
  return value === undefined || value === '' ? {} : { 'anthropic-beta': value };
}
