import type { ChatChunk, ChatUsage, FinishReason } from '../chat/types.js';
import { messageIdFor } from '../messages/chat-to-messages.js';
import { stopReasonOf } from '../messages/finish-reasons.js';
import type { MessagesErrorBody, MessageStreamEvent, MessagesUsage } from '../messages/types.js';
import { toMessagesUsage } from '../messages/usage.js';
import { argumentsComplete, ToolCallTracker, type TrackedToolCall } from './tool-call-tracker.js';

export interface MessageEventsOptions {
  /** The model string the client sent (echoed in message_start). */
  model: string;
  /**
   * Prompt tokens counted by the caller before the call: the hub stream reports usage only at
   * its end, and message_start must carry real input usage (never a silent 0).
   */
  inputTokens: number;
  /** Default: `msg_` + the first chunk's id. */
  messageId?: string;
  /** The request's stop_sequences (see messages/finish-reasons.ts). */
  stopSequences?: readonly string[];
}

type Phase = 'idle' | 'streaming' | 'finished' | 'done';

type LiveBlock = { kind: 'text'; index: number } | { kind: 'tool'; index: number; call: TrackedToolCall };

/** Output waiting for the live block to close (it is a tool call whose arguments are incomplete). */
type Queued = { kind: 'text'; text: string } | { kind: 'tool'; call: TrackedToolCall };

/**
 * Hub ChatChunks → message-style stream events (spec "Streaming", message-style table), as an
 * explicit state machine: idle → streaming (message_start sent) → finished (finish_reason seen,
 * all blocks closed) → done (message_delta + message_stop, or an `error` event).
 *
 * Blocks: one is live at a time. Text opens a text block (never an empty one); a tool call opens
 * a tool_use block and streams its arguments as input_json_delta. When output for another block
 * arrives while a tool call's arguments are still incomplete JSON (interleaved calls or text),
 * that output is queued and opens its block once the live call completes or the choice finishes,
 * so no argument text is ever lost or attached to the wrong block. Only choice 0 is mapped.
 * message_delta waits for end(): usage may arrive in a chunk after the finish.
 */
export class ChatToMessageEvents {
  private phase: Phase = 'idle';
  private readonly tools = new ToolCallTracker();
  private live: LiveBlock | null = null;
  private readonly queue: Queued[] = [];
  private nextIndex = 0;
  private text = '';
  private finishReason: FinishReason | null = null;
  private usage: ChatUsage | undefined;

  constructor(private readonly options: MessageEventsOptions) {}

  get state(): Phase {
    return this.phase;
  }

  /** The usage the hub stream reported, if any (the caller bills it, or counts its own). */
  get reportedUsage(): ChatUsage | undefined {
    return this.usage;
  }

  /** All text and tool-argument text received, for counting output tokens when usage is missing. */
  get outputText(): string {
    return this.text + this.tools.all().map((call) => call.arguments).join('');
  }

  push(chunk: ChatChunk): MessageStreamEvent[] {
    if (this.phase === 'done') return [];
    const events: MessageStreamEvent[] = [];
    if (this.phase === 'idle') {
      events.push(this.messageStart(chunk.id));
      this.phase = 'streaming';
    }
    if (chunk.usage != null) this.usage = chunk.usage;
    if (this.phase !== 'streaming') return events;
    for (const choice of chunk.choices) {
      if (choice.index !== 0) continue;
      const delta = choice.delta;
      const text = (delta.content ?? '') + (delta.refusal ?? '');
      if (text !== '') this.onText(text, events);
      for (const toolDelta of delta.tool_calls ?? []) this.onToolDelta(this.tools.record(toolDelta), events);
      if (choice.finish_reason !== null && choice.finish_reason !== undefined) {
        this.closeAll(events);
        this.finishReason = choice.finish_reason;
        this.phase = 'finished';
      }
    }
    return events;
  }

  /**
   * The upstream is done. After a finish: message_delta (stop_reason, final usage; the hub's
   * usage, else `fallbackUsage`, else the counted input and 0 output) and message_stop. Without a
   * finish the upstream was cut short: an `error` event instead.
   */
  end(fallbackUsage?: ChatUsage): MessageStreamEvent[] {
    if (this.phase === 'done') return [];
    if (this.phase !== 'finished') {
      return this.fail({ type: 'api_error', message: 'The upstream stream ended before the message was complete.', code: 'INFERENCE_3105' });
    }
    this.phase = 'done';
    const reported = this.usage ?? fallbackUsage;
    const usage: MessagesUsage = reported === undefined ? { input_tokens: this.options.inputTokens, output_tokens: 0, cache_read_input_tokens: 0 } : toMessagesUsage(reported);
    const { stop_reason, stop_sequence } = stopReasonOf(this.finishReason, this.text, this.options.stopSequences);
    return [{ type: 'message_delta', delta: { stop_reason, stop_sequence }, usage }, { type: 'message_stop' }];
  }

  /** A mid-stream failure: one `error` event, then nothing more (the caller closes the connection). */
  fail(error: MessagesErrorBody): MessageStreamEvent[] {
    if (this.phase === 'done') return [];
    this.phase = 'done';
    return [{ type: 'error', error }];
  }

  private messageStart(chunkId: string): MessageStreamEvent {
    return {
      type: 'message_start',
      message: {
        id: this.options.messageId ?? messageIdFor(chunkId),
        type: 'message',
        role: 'assistant',
        content: [],
        model: this.options.model,
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: this.options.inputTokens, output_tokens: 0, cache_read_input_tokens: 0 },
      },
    };
  }

  private onText(text: string, events: MessageStreamEvent[]): void {
    this.text += text;
    if (this.live?.kind === 'text') {
      events.push({ type: 'content_block_delta', index: this.live.index, delta: { type: 'text_delta', text } });
      return;
    }
    if (this.queue.length > 0 || !this.liveClosable()) {
      const last = this.queue[this.queue.length - 1];
      if (last?.kind === 'text') last.text += text;
      else this.queue.push({ kind: 'text', text });
      return;
    }
    this.closeLive(events);
    this.openText(text, events);
  }

  private onToolDelta(call: TrackedToolCall, events: MessageStreamEvent[]): void {
    if (call.state === 'live') {
      this.sendArguments(call, events);
    } else if (call.state === 'pending' && !this.queue.some((item) => item.kind === 'tool' && item.call === call)) {
      if (this.queue.length > 0 || !this.liveClosable()) this.queue.push({ kind: 'tool', call });
      else {
        this.closeLive(events);
        this.openTool(call, events);
      }
    }
    // A closed call already had complete JSON arguments: anything after it cannot belong to it.
    this.drainQueue(events);
  }

  /** Opens queued output while the live block may close (text always may; a tool once its JSON is complete). */
  private drainQueue(events: MessageStreamEvent[]): void {
    while (this.queue.length > 0 && this.liveClosable()) {
      this.closeLive(events);
      this.openQueued(this.queue.shift()!, events);
    }
  }

  private closeAll(events: MessageStreamEvent[]): void {
    while (this.queue.length > 0) {
      this.closeLive(events);
      this.openQueued(this.queue.shift()!, events);
    }
    this.closeLive(events);
  }

  private liveClosable(): boolean {
    return this.live === null || this.live.kind === 'text' || argumentsComplete(this.live.call.arguments);
  }

  private openQueued(item: Queued, events: MessageStreamEvent[]): void {
    if (item.kind === 'text') this.openText(item.text, events);
    else this.openTool(item.call, events);
  }

  private openText(text: string, events: MessageStreamEvent[]): void {
    const index = this.nextIndex++;
    events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
    this.live = { kind: 'text', index };
  }

  private openTool(call: TrackedToolCall, events: MessageStreamEvent[]): void {
    const index = this.nextIndex++;
    call.id ??= `toolu_${index}`;
    call.name ??= '';
    call.state = 'live';
    events.push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } });
    this.live = { kind: 'tool', index, call };
    this.sendArguments(call, events);
  }

  private sendArguments(call: TrackedToolCall, events: MessageStreamEvent[]): void {
    if (this.live?.kind !== 'tool' || this.live.call !== call || call.sent >= call.arguments.length) return;
    events.push({ type: 'content_block_delta', index: this.live.index, delta: { type: 'input_json_delta', partial_json: call.arguments.slice(call.sent) } });
    call.sent = call.arguments.length;
  }

  private closeLive(events: MessageStreamEvent[]): void {
    if (this.live === null) return;
    if (this.live.kind === 'tool') this.live.call.state = 'closed';
    events.push({ type: 'content_block_stop', index: this.live.index });
    this.live = null;
  }
}
