import { createHash } from 'node:crypto';
import { GatewayError } from '../../errors/gateway-error.js';
import { countChatPromptTokens, tokenPieces, type TokenPiece } from '../../tokens/tokenizer.js';
import {
  makeUsage,
  type ChatChunk,
  type ChatRequest,
  type ChatResponse,
  type ChoiceLogprobs,
  type ChunkChoice,
  type FinishReason,
  type FunctionTool,
  type TokenLogprob,
  type ToolCall,
} from '../../translate/chat/types.js';
import { instanceFor } from './json-schema-instance.js';

/**
 * `local-echo` (DESIGN §3): a deterministic algorithm, not a language model. It answers with
 * the last user text and honours the generation controls a client tests against (max_tokens,
 * stop, n, logprobs, forced tool calls, JSON response formats), so every chat feature of the
 * gateway can be exercised offline. Pure: ids and time come in through `EchoIdentity`.
 */

export interface EchoIdentity {
  id: string;
  created: number;
  model: string;
}

/** Argument text of a streamed tool call is sent in about this many deltas, as providers do. */
const TOOL_ARGUMENT_DELTAS = 4;

/** Everything every choice shares; choices differ only in index (and tool call id). */
interface EchoPlan {
  content: string | null;
  tool: { name: string; arguments: string } | null;
  pieces: TokenPiece[];
  completionTokens: number;
  finishReason: FinishReason;
}

export function echoChatResponse(request: ChatRequest, identity: EchoIdentity): ChatResponse {
  const plan = planEcho(request);
  const choiceCount = request.n ?? 1;
  return {
    id: identity.id,
    object: 'chat.completion',
    created: identity.created,
    model: identity.model,
    choices: Array.from({ length: choiceCount }, (_, index) => ({
      index,
      message: {
        role: 'assistant' as const,
        content: plan.content,
        tool_calls: plan.tool === null ? null : [toolCallFor(plan.tool, index)],
        refusal: null,
      },
      finish_reason: plan.finishReason,
      logprobs: request.logprobs === true ? logprobsFor(plan, plan.pieces, request.top_logprobs) : null,
    })),
    usage: makeUsage(countChatPromptTokens(request.messages), plan.completionTokens * choiceCount),
    system_fingerprint: null,
  };
}

/**
 * The same answer as `echoChatResponse`, as OpenAI chunks: per choice a role chunk, one content
 * chunk per token (or the tool call header then its arguments in a few pieces), a finish chunk;
 * then, only with `stream_options.include_usage`, a `choices: []` chunk carrying usage.
 */
export function* echoChatChunks(request: ChatRequest, identity: EchoIdentity): Generator<ChatChunk> {
  const plan = planEcho(request);
  const choiceCount = request.n ?? 1;
  const includeUsage = request.stream_options?.include_usage === true;
  const chunk = (choices: ChunkChoice[]): ChatChunk => ({
    id: identity.id,
    object: 'chat.completion.chunk',
    created: identity.created,
    model: identity.model,
    system_fingerprint: null,
    choices,
    // OpenAI sends `usage: null` on every chunk but the last when usage was asked for.
    ...(includeUsage ? { usage: null } : {}),
  });

  for (let index = 0; index < choiceCount; index++) {
    if (plan.tool === null) {
      yield chunk([{ index, delta: { role: 'assistant', content: '' }, finish_reason: null, logprobs: null }]);
      for (const piece of plan.pieces) {
        const logprobs = request.logprobs === true ? logprobsFor(plan, [piece], request.top_logprobs) : null;
        yield chunk([{ index, delta: { content: piece.text }, finish_reason: null, logprobs }]);
      }
    } else {
      const call = toolCallFor(plan.tool, index);
      yield chunk([
        {
          index,
          delta: { role: 'assistant', content: null, tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] },
          finish_reason: null,
          logprobs: null,
        },
      ]);
      for (const part of groupPieces(plan.pieces, TOOL_ARGUMENT_DELTAS)) {
        yield chunk([{ index, delta: { tool_calls: [{ index: 0, function: { arguments: part } }] }, finish_reason: null, logprobs: null }]);
      }
    }
    yield chunk([{ index, delta: {}, finish_reason: plan.finishReason, logprobs: null }]);
  }

  if (includeUsage) {
    yield { ...chunk([]), usage: makeUsage(countChatPromptTokens(request.messages), plan.completionTokens * choiceCount) };
  }
}

function planEcho(request: ChatRequest): EchoPlan {
  const answer = lastUserText(request);
  const limit = request.max_completion_tokens ?? request.max_tokens;
  const forcedTool = forcedToolOf(request);

  if (forcedTool !== undefined) {
    const parameters = forcedTool.function.parameters;
    const hasSchema = parameters !== undefined && Object.keys(parameters).length > 0;
    const value = instanceFor(hasSchema ? parameters : { type: 'object', properties: {} }, answer);
    // Stop sequences are a text-generation control; they are not applied inside arguments.
    const limited = limitTokens(JSON.stringify(value), limit);
    return {
      content: null,
      tool: { name: forcedTool.function.name, arguments: limited.text },
      pieces: limited.pieces,
      completionTokens: limited.tokens,
      finishReason: limited.truncated ? 'length' : 'tool_calls',
    };
  }

  const output = applyStop(formatAnswer(request, answer), request.stop);
  // Like a model, a stop sequence ends generation first; max_tokens only cuts what remains.
  const limited = limitTokens(output, limit);
  return {
    content: limited.text,
    tool: null,
    pieces: limited.pieces,
    completionTokens: limited.tokens,
    finishReason: limited.truncated ? 'length' : 'stop',
  };
}

function lastUserText(request: ChatRequest): string {
  for (let index = request.messages.length - 1; index >= 0; index--) {
    const message = request.messages[index]!;
    if (message.role !== 'user') continue;
    if (typeof message.content === 'string') return message.content;
    return message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
  }
  return '';
}

/** The tool the request forces (`required` → the first tool, or the named one); else none. */
function forcedToolOf(request: ChatRequest): FunctionTool | undefined {
  const tools = request.tools ?? [];
  const choice = request.tool_choice;
  if (tools.length === 0 || choice === undefined || choice === 'auto' || choice === 'none') return undefined;
  if (choice === 'required') return tools[0];
  const named = tools.find((tool) => tool.function.name === choice.function.name);
  if (named === undefined) {
    throw new GatewayError('VALIDATION_4005', `tool_choice names "${choice.function.name}", which is not among the request's tools.`, {
      field: 'tool_choice.function.name',
    });
  }
  return named;
}

function formatAnswer(request: ChatRequest, answer: string): string {
  const format = request.response_format;
  if (format?.type === 'json_schema') return JSON.stringify(instanceFor(format.json_schema.schema ?? {}, answer));
  if (format?.type === 'json_object') return JSON.stringify({ echo: answer });
  return answer;
}

function applyStop(text: string, stop: ChatRequest['stop']): string {
  const sequences = (typeof stop === 'string' ? [stop] : (stop ?? [])).filter((sequence) => sequence.length > 0);
  let cut = text.length;
  for (const sequence of sequences) {
    const at = text.indexOf(sequence);
    if (at !== -1 && at < cut) cut = at;
  }
  return text.slice(0, cut);
}

function limitTokens(text: string, limit: number | undefined): { text: string; pieces: TokenPiece[]; tokens: number; truncated: boolean } {
  const all = tokenPieces(text);
  const pieces: TokenPiece[] = [];
  let tokens = 0;
  let truncated = false;
  for (const piece of all) {
    // A piece spanning several tokens (a split multi-byte character) is kept whole or dropped whole.
    if (limit !== undefined && tokens + piece.tokens > limit) {
      truncated = true;
      break;
    }
    pieces.push(piece);
    tokens += piece.tokens;
  }
  return { text: pieces.map((piece) => piece.text).join(''), pieces, tokens, truncated };
}

function toolCallFor(tool: { name: string; arguments: string }, choiceIndex: number): ToolCall {
  // Deterministic but distinct per choice, so ids stay unique within one response.
  const digest = createHash('sha256').update(`${tool.name}\u0000${tool.arguments}\u0000${choiceIndex}`).digest('hex');
  return { id: `call_${digest.slice(0, 24)}`, type: 'function', function: { name: tool.name, arguments: tool.arguments } };
}

/** Every token is certain (probability 1, logprob 0): the output is fully determined. */
function logprobsFor(plan: EchoPlan, pieces: TokenPiece[], topLogprobs: number | undefined): ChoiceLogprobs {
  // Providers report no token logprobs for tool-call arguments.
  if (plan.tool !== null) return { content: null, refusal: null };
  const content = pieces.map((piece): TokenLogprob => {
    const bytes = [...Buffer.from(piece.text, 'utf8')];
    return {
      token: piece.text,
      logprob: 0,
      bytes,
      top_logprobs: (topLogprobs ?? 0) >= 1 ? [{ token: piece.text, logprob: 0, bytes }] : [],
    };
  });
  return { content, refusal: null };
}

/** Joins consecutive pieces into at most `groups` strings of about equal token count. */
function groupPieces(pieces: TokenPiece[], groups: number): string[] {
  const size = Math.max(1, Math.ceil(pieces.length / groups));
  const parts: string[] = [];
  for (let start = 0; start < pieces.length; start += size) {
    parts.push(pieces.slice(start, start + size).map((piece) => piece.text).join(''));
  }
  return parts;
}
