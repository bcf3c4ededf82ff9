import { renderError } from '../errors/render.js';
import type { SseWriter } from '../http/sse.js';
import { committedFailure, meterServed, openChat, type InferenceScope, type OpenedChat } from '../inference/index.js';
import { countChatPromptTokens } from '../tokens/tokenizer.js';
import type { ChatChunk, ChatMessage, ChatUsage } from '../translate/chat/types.js';
import type { MessagesErrorBody, MessagesResponseBlock, MessageStreamEvent } from '../translate/messages/types.js';
import { toMessagesUsage } from '../translate/messages/usage.js';
import { accumulateChat } from '../translate/stream/accumulate-chat.js';
import { ChatToMessageEvents, type MessageEventsOptions } from '../translate/stream/chat-to-message-events.js';
import type { MessagesMcp } from './messages-mcp.js';
import { addUsage, continuedRequest, MAX_MODEL_TURNS, nextTurnPlan } from './responses-turns.js';

/**
 * stream=true with `mcp_servers` on a translated route (issue 20 item 3): the streamed twin of
 * runMcpTurns (messages-mcp.ts). Each model turn runs through the one stream driver; its text
 * and client tool calls stream live, its MCP calls are held back (they are igw's, not the
 * client's), run on their servers once the turn ends, and sent as `mcp_tool_use` /
 * `mcp_tool_result` blocks, as Anthropic streams them (beta mcp-client-2025-04-04). The client
 * sees one message: one message_start, the blocks of every turn indexed in order, and one
 * message_delta carrying the usage summed over the turns (metered once, like the JSON answer).
 */
export async function streamMcpTurns(scope: InferenceScope, mcp: MessagesMcp, first: OpenedChat, writer: SseWriter, options: MessageEventsOptions): Promise<void> {
  const out = new MergedMessage(writer);
  let plan = mcp.plan;
  let opened = first;
  let usage: ChatUsage | undefined;
  for (let turn = 1; ; turn++) {
    const mapper = new ChatToMessageEvents({ ...options, inputTokens: turn === 1 ? options.inputTokens : 0 });
    const chunks: ChatChunk[] = [];
    const held = new Set<number>();
    const promptTokens = countChatPromptTokens(plan.request.messages);
    const driven = await opened.drive(
      (chunk) => {
        chunks.push(chunk);
        return out.relay(mapper.push(withoutMcpCalls(chunk, mcp, held)));
      },
      { choices: 1, promptTokens: () => promptTokens },
    );
    usage = usage === undefined ? driven.usage : addUsage(usage, driven.usage);
    if (driven.aborted || driven.failure !== undefined) {
      meterServed(scope, opened, usage);
      if (driven.failure !== undefined) await out.relay(mapper.fail(errorBody(driven.failure)));
      return;
    }
    const answer = { candidate: opened.candidate, response: accumulateChat(chunks) };
    const calls = answer.response.choices[0]?.message.tool_calls ?? [];
    const ours = calls.filter((toolCall) => mcp.owns(toolCall));
    const results: ChatMessage[] = [];
    for (const toolCall of ours) {
      const ran = await mcp.run(toolCall);
      await out.blocks(ran.blocks);
      results.push(ran.message);
    }
    const last = ours.length === 0 || ours.length < calls.length || turn >= MAX_MODEL_TURNS;
    if (last) {
      meterServed(scope, opened, usage);
      const tail = mapper.end(usage);
      if (tail[0]?.type === 'error') scope.log.error_code = 'INFERENCE_3105';
      // Only igw's calls ended the turn (turn limit): the answer stops there, as the JSON answer does.
      const clientCalls = ours.length < calls.length;
      await out.relay(tail.map((event) => (event.type === 'message_delta' ? { ...event, usage: toMessagesUsage(usage!), delta: ours.length > 0 && !clientCalls ? { stop_reason: 'end_turn', stop_sequence: null } : event.delta } : event)));
      return;
    }
    plan = nextTurnPlan(plan, answer, continuedRequest(plan.request, answer.response, ours, results));
    try {
      opened = await openChat(scope, plan, { stream_options: { include_usage: true } });
    } catch (error) {
      // A later turn that cannot start: the message already began, so an `error` event ends it.
      meterServed(scope, opened, usage);
      await out.relay(mapper.fail(errorBody(committedFailure(scope, error, 'The provider failed.'))));
      return;
    }
  }
}

function errorBody(failure: unknown): MessagesErrorBody {
  return (renderError(failure, 'messages').body as { error: MessagesErrorBody }).error;
}

/**
 * A turn's chunks without the tool calls igw runs: a call is known as igw's by the name in its
 * first delta, and its later deltas (index only) are held back by that index.
 */
function withoutMcpCalls(chunk: ChatChunk, mcp: MessagesMcp, held: Set<number>): ChatChunk {
  let changed = false;
  const choices = chunk.choices.map((choice) => {
    const deltas = choice.delta.tool_calls;
    if (choice.index !== 0 || deltas === undefined) return choice;
    for (const delta of deltas) if (delta.function?.name !== undefined && mcp.owns({ function: { name: delta.function.name } })) held.add(delta.index);
    const kept = deltas.filter((delta) => !held.has(delta.index));
    if (kept.length === deltas.length) return choice;
    changed = true;
    const { tool_calls: _dropped, ...delta } = choice.delta;
    return { ...choice, delta: kept.length === 0 ? delta : { ...delta, tool_calls: kept } };
  });
  return changed ? { ...chunk, choices } : chunk;
}

/** The turns' events as one message: the first message_start only, block indexes continued across turns. */
class MergedMessage {
  private started = false;
  /** Index of the next block across turns; a turn's mapper counts from 0. */
  private base = 0;
  private turnBlocks = 0;

  constructor(private readonly writer: SseWriter) {}

  relay(events: readonly MessageStreamEvent[]): Promise<void> | undefined {
    let pushback: Promise<void> | undefined;
    for (let event of events) {
      if (event.type === 'message_start') {
        if (this.started) continue;
        this.started = true;
      }
      if (event.type === 'content_block_start' || event.type === 'content_block_delta' || event.type === 'content_block_stop') {
        if (event.type === 'content_block_start') this.turnBlocks = Math.max(this.turnBlocks, event.index + 1);
        event = { ...event, index: this.base + event.index };
      }
      pushback = this.writer.send(event, event.type) ?? pushback;
    }
    return pushback;
  }

  /** Blocks igw made (the MCP call and its result), after the turn's own: the next turn's count from after them. */
  async blocks(blocks: readonly MessagesResponseBlock[]): Promise<void> {
    this.base += this.turnBlocks;
    this.turnBlocks = 0;
    for (const block of blocks) {
      const index = this.base++;
      const events: MessageStreamEvent[] =
        block.type === 'mcp_tool_use'
          ? [
              // As Anthropic streams a tool call: empty input at the start, the JSON as one delta.
              { type: 'content_block_start', index, content_block: { ...block, input: {} } },
              { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } },
              { type: 'content_block_stop', index },
            ]
          : [{ type: 'content_block_start', index, content_block: block as StartedBlock }, { type: 'content_block_stop', index }];
      for (const event of events) await this.writer.send(event, event.type);
    }
  }
}

type StartedBlock = Extract<MessageStreamEvent, { type: 'content_block_start' }>['content_block'];
