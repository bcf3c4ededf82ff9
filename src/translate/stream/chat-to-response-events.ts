import type { ChatChunk, ChatUsage, FinishReason, ToolCall } from '../chat/types.js';
import { finishResponse, messageStatus } from '../responses/chat-to-responses.js';
import { fileSearchCallItem, functionCallItem, itemId, messageItem, reasoningItem, toolCallItem } from '../responses/output-items.js';
import type { ToolKind, ToolPlan } from '../responses/tools.js';
import type { FileSearchResult, OutputMcpCallItem, ResponseObject, ResponsesError, ResponsesOutputItem, ResponseStreamEvent } from '../responses/types.js';
import { argumentsComplete, ToolCallTracker, type TrackedToolCall } from './tool-call-tracker.js';

export interface ResponseEventsOptions {
  /** The response before any output (chat-to-responses.ts responseSkeleton). */
  skeleton: ResponseObject;
  tools: ToolPlan;
}

/**
 * idle → streaming (response.created + in_progress sent) → turn_finished (finish_reason seen,
 * every item closed) → streaming again when igw continues the answer after running file_search
 * (nextTurn) → done (response.completed, or error + response.failed).
 */
type Phase = 'idle' | 'streaming' | 'turn_finished' | 'done';

type LiveItem =
  | { kind: 'reasoning'; index: number; id: string; text: string }
  | { kind: 'message'; index: number; id: string; text: string }
  | { kind: 'function'; index: number; id: string; call: TrackedToolCall };

/** Output waiting for the live function call's arguments to complete. */
type Queued = { kind: 'reasoning'; text: string } | { kind: 'text'; text: string } | { kind: 'function'; call: TrackedToolCall };

/** Extra top-level fields of the final response (environment_impact, billing_cost). */
export type ResponseExtras = Record<string, unknown>;

/**
 * Hub ChatChunks → responses-style stream events (spec "Streaming"; event order and shapes as in
 * the recorded OpenAI captures), as an explicit state machine. Every event carries the next
 * `sequence_number`, from 0.
 *
 * Items: one is live at a time. Reasoning (hub reasoning_content) opens a reasoning item and
 * streams as reasoning_text.delta, as OpenAI-compatible local servers do. Text opens a message item (output_item.added, then
 * content_part.added) and streams as output_text.delta; a client function call opens a
 * function_call item and streams its arguments as function_call_arguments.delta. Output for
 * another item that arrives while a call's arguments are still incomplete JSON is queued and
 * opens once the call completes or the turn finishes (as in chat-to-message-events.ts). custom,
 * shell and apply_patch calls are held until the turn finishes, then sent whole (their items carry
 * parsed fields, not argument text); file_search calls are handed to the caller, which runs them
 * and reports them through fileSearchStarted / fileSearchCompleted. Only choice 0 is mapped.
 * The order of items matches chat-to-responses.ts turnOutput for the same turn.
 */
export class ChatToResponseEvents {
  private phase: Phase = 'idle';
  private sequence = 0;
  private tools = new ToolCallTracker();
  private live: LiveItem | null = null;
  private readonly queue: Queued[] = [];
  private readonly output: ResponsesOutputItem[] = [];
  /** Output indexes handed out so far (items still open included). */
  private nextIndex = 0;
  private turnText = '';
  private reasoningText = '';
  private usage: ChatUsage | undefined;
  private finish: FinishReason | null = null;
  private internal: ToolCall[] = [];
  private clientCalls = 0;
  private readonly searches = new Map<number, { id: string; query: string }>();

  constructor(private readonly options: ResponseEventsOptions) {}

  get state(): Phase {
    return this.phase;
  }

  /** Usage the hub stream reported for the current turn, if any. */
  get reportedUsage(): ChatUsage | undefined {
    return this.usage;
  }

  /** All text and tool-argument text of the current turn, for counting output tokens when usage is missing. */
  get outputText(): string {
    return this.reasoningText + this.turnText + this.tools.all().map((call) => call.arguments).join('');
  }

  /** The text of the current turn (what the model said besides its tool calls). */
  get text(): string {
    return this.turnText;
  }

  get finishReason(): FinishReason | null {
    return this.finish;
  }

  /** The finished turn's file_search calls, for the caller to run. */
  get internalCalls(): ToolCall[] {
    return this.internal;
  }

  /** Whether the finished turn called client tools (function, shell, apply_patch). */
  get calledClientTools(): boolean {
    return this.clientCalls > 0;
  }

  /** The items completed so far (what a failure reports). */
  get items(): readonly ResponsesOutputItem[] {
    return this.output;
  }

  push(chunk: ChatChunk): ResponseStreamEvent[] {
    if (this.phase === 'done') return [];
    const events: ResponseStreamEvent[] = [];
    this.begin(events);
    if (chunk.usage != null) this.usage = chunk.usage;
    if (this.phase !== 'streaming') return events;
    for (const choice of chunk.choices) {
      if (choice.index !== 0) continue;
      const reasoning = choice.delta.reasoning_content ?? '';
      if (reasoning !== '') this.onTextLike('reasoning', reasoning, events);
      const text = (choice.delta.content ?? '') + (choice.delta.refusal ?? '');
      if (text !== '') this.onTextLike('text', text, events);
      for (const delta of choice.delta.tool_calls ?? []) this.onToolDelta(this.tools.record(delta), events);
      if (choice.finish_reason != null) {
        this.finish = choice.finish_reason;
        this.finishTurn(events);
      }
    }
    return events;
  }

  /** The caller continues the answer with another model turn (after running file_search or mcp calls). */
  nextTurn(): void {
    if (this.phase !== 'turn_finished') throw new Error(`nextTurn in phase ${this.phase}`);
    this.phase = 'streaming';
    this.tools = new ToolCallTracker();
    this.turnText = '';
    this.reasoningText = '';
    this.usage = undefined;
    this.finish = null;
    this.internal = [];
    this.clientCalls = 0;
  }

  /** A file_search call igw is about to run: its item opens and reports that it is searching. */
  fileSearchStarted(query: string): { handle: number; events: ResponseStreamEvent[] } {
    const events: ResponseStreamEvent[] = [];
    const index = this.nextIndex++;
    const id = itemId('file_search_call', this.options.skeleton.id, index);
    this.searches.set(index, { id, query });
    this.emit(events, { type: 'response.output_item.added', output_index: index, item: fileSearchCallItem(id, query, 'in_progress', null) });
    this.emit(events, { type: 'response.file_search_call.in_progress', item_id: id, output_index: index });
    this.emit(events, { type: 'response.file_search_call.searching', item_id: id, output_index: index });
    return { handle: index, events };
  }

  /**
   * The search is done: `results` go into the item only when the client asked for them
   * (include). A search that failed closes its item as `failed` (the caller then fails the answer).
   */
  fileSearchCompleted(handle: number, results: FileSearchResult[] | null, status: 'completed' | 'failed' = 'completed'): ResponseStreamEvent[] {
    const search = this.searches.get(handle);
    if (search === undefined) throw new Error(`unknown file search ${handle}`);
    const events: ResponseStreamEvent[] = [];
    const item = fileSearchCallItem(search.id, search.query, status, results);
    if (status === 'completed') this.emit(events, { type: 'response.file_search_call.completed', item_id: search.id, output_index: handle });
    this.emit(events, { type: 'response.output_item.done', output_index: handle, item });
    this.output.push(item);
    return events;
  }

  /**
   * An item igw made whole without the model (mcp_list_tools, an approved mcp_call run before the
   * first turn, an mcp_approval_request), with the events of its type; before the first model
   * chunk it opens the response. `build` gets the item's output index.
   */
  serverItem(build: (outputIndex: number) => ResponsesOutputItem): ResponseStreamEvent[] {
    const events: ResponseStreamEvent[] = [];
    this.begin(events);
    const index = this.nextIndex++;
    const item = build(index);
    if (item.type === 'mcp_call') {
      const started = this.startMcpCall(index, item, events);
      return [...events, ...this.mcpCallCompleted(started, item)];
    }
    if (item.type === 'mcp_list_tools') {
      this.emit(events, { type: 'response.output_item.added', output_index: index, item: { ...item, tools: [] } });
      this.emit(events, { type: 'response.mcp_list_tools.in_progress', item_id: item.id, output_index: index });
      this.emit(events, { type: item.error == null ? 'response.mcp_list_tools.completed' : 'response.mcp_list_tools.failed', item_id: item.id, output_index: index });
    } else {
      this.emit(events, { type: 'response.output_item.added', output_index: index, item });
    }
    this.emit(events, { type: 'response.output_item.done', output_index: index, item });
    this.output.push(item);
    return events;
  }

  /** An mcp_call igw is about to run: its item opens with its arguments and reports that it is in progress. */
  mcpCallStarted(build: (outputIndex: number) => OutputMcpCallItem): { handle: number; events: ResponseStreamEvent[] } {
    const events: ResponseStreamEvent[] = [];
    const index = this.nextIndex++;
    return { handle: this.startMcpCall(index, build(index), events), events };
  }

  /** The call is done: `item` carries its output or error (status completed or failed). */
  mcpCallCompleted(handle: number, item: OutputMcpCallItem): ResponseStreamEvent[] {
    const events: ResponseStreamEvent[] = [];
    this.emit(events, { type: item.status === 'failed' ? 'response.mcp_call.failed' : 'response.mcp_call.completed', item_id: item.id, output_index: handle });
    this.emit(events, { type: 'response.output_item.done', output_index: handle, item });
    this.output.push(item);
    return events;
  }

  /**
   * The answer is complete: response.completed with the final usage and `extras` (billing,
   * impact), or response.failed when the provider's content filter stopped it. A stream that
   * ended before its turn finished was cut short: error + response.failed.
   */
  end(usage: ChatUsage | null, extras: ResponseExtras = {}): ResponseStreamEvent[] {
    if (this.phase === 'done') return [];
    if (this.phase !== 'turn_finished') {
      return this.fail({ code: 'INFERENCE_3105', message: 'The upstream stream ended before the response was complete.' }, extras, usage);
    }
    this.phase = 'done';
    const response = { ...finishResponse(this.options.skeleton, [...this.output], this.finish, usage), ...extras };
    const events: ResponseStreamEvent[] = [];
    this.emit(events, { type: response.status === 'failed' ? 'response.failed' : 'response.completed', response });
    return events;
  }

  /** A failure after the stream started: an `error` event, then response.failed with the items completed so far. */
  fail(error: ResponsesError, extras: ResponseExtras = {}, usage: ChatUsage | null = null): ResponseStreamEvent[] {
    if (this.phase === 'done') return [];
    const events: ResponseStreamEvent[] = [];
    if (this.phase === 'idle') {
      this.emit(events, { type: 'response.created', response: this.options.skeleton });
      this.emit(events, { type: 'response.in_progress', response: this.options.skeleton });
    }
    this.phase = 'done';
    // Both shapes: the flat one of OpenAI's API reference and the nested one its servers send
    // (recorded capture stream-error-insufficient-quota), which SDKs raise as an API error.
    const body = { type: 'server_error', code: error.code, message: error.message, param: null };
    this.emit(events, { type: 'error', code: error.code, message: error.message, param: null, error: body });
    const response = { ...finishResponse(this.options.skeleton, [...this.output], this.finish, usage, error), ...extras };
    this.emit(events, { type: 'response.failed', response });
    return events;
  }

  /** response.created + in_progress, once, before the first output. */
  private begin(events: ResponseStreamEvent[]): void {
    if (this.phase !== 'idle') return;
    this.emit(events, { type: 'response.created', response: this.options.skeleton });
    this.emit(events, { type: 'response.in_progress', response: this.options.skeleton });
    this.phase = 'streaming';
  }

  private startMcpCall(index: number, item: OutputMcpCallItem, events: ResponseStreamEvent[]): number {
    this.emit(events, { type: 'response.output_item.added', output_index: index, item: { ...item, output: null, error: null, status: 'in_progress' } });
    if (item.arguments !== '') this.emit(events, { type: 'response.mcp_call_arguments.delta', item_id: item.id, output_index: index, delta: item.arguments });
    this.emit(events, { type: 'response.mcp_call_arguments.done', item_id: item.id, output_index: index, arguments: item.arguments });
    this.emit(events, { type: 'response.mcp_call.in_progress', item_id: item.id, output_index: index });
    return index;
  }

  private emit(events: ResponseStreamEvent[], event: DistributiveOmit<ResponseStreamEvent, 'sequence_number'>): void {
    events.push({ ...event, sequence_number: this.sequence++ } as ResponseStreamEvent);
  }

  /** Message text or reasoning text: streamed into its live item, else a new item (queued while a call's arguments are incomplete). */
  private onTextLike(kind: 'text' | 'reasoning', text: string, events: ResponseStreamEvent[]): void {
    if (kind === 'text') this.turnText += text;
    else this.reasoningText += text;
    const liveKind = kind === 'text' ? 'message' : 'reasoning';
    if (this.live?.kind === liveKind && this.queue.length === 0) {
      this.sendText(this.live, text, events);
      return;
    }
    if (this.queue.length > 0 || !this.liveClosable()) {
      const last = this.queue[this.queue.length - 1];
      if (last?.kind === kind) last.text += text;
      else this.queue.push({ kind, text });
      return;
    }
    this.closeLive(events, 'completed');
    this.openTextLike(kind, text, events);
  }

  private onToolDelta(call: TrackedToolCall, events: ResponseStreamEvent[]): void {
    const kind = this.kindOf(call);
    if (kind === 'function') {
      if (call.state === 'live') this.sendArguments(call, events);
      else if (call.state === 'pending' && !this.queue.some((item) => item.kind === 'function' && item.call === call)) {
        if (this.queue.length > 0 || !this.liveClosable()) this.queue.push({ kind: 'function', call });
        else {
          this.closeLive(events, 'completed');
          this.openFunction(call, events);
        }
      }
    }
    // Built-in calls stay pending in the tracker until the turn finishes.
    this.drainQueue(events);
  }

  private kindOf(call: TrackedToolCall): ToolKind | undefined {
    // A call's name arrives with its first delta; until then it cannot be placed.
    if (call.name === undefined) return undefined;
    return this.options.tools.kinds.get(call.name) ?? 'function';
  }

  private drainQueue(events: ResponseStreamEvent[]): void {
    while (this.queue.length > 0 && this.liveClosable()) {
      this.closeLive(events, 'completed');
      this.openQueued(this.queue.shift()!, events);
    }
  }

  private finishTurn(events: ResponseStreamEvent[]): void {
    // Calls whose name came late (or never) and that are still pending: functions open now.
    for (const call of this.tools.pending()) {
      const kind = this.kindOf(call) ?? 'function';
      if (kind === 'function' && !this.queue.some((item) => item.kind === 'function' && item.call === call)) this.queue.push({ kind: 'function', call });
    }
    while (this.queue.length > 0) {
      this.closeLive(events, 'completed');
      this.openQueued(this.queue.shift()!, events);
    }
    this.closeLive(events, messageStatus(this.finish));
    for (const call of this.tools.all()) {
      const kind = this.kindOf(call) ?? 'function';
      if (kind === 'function') continue;
      const toolCall = asToolCall(call, this.nextIndex);
      if (kind === 'file_search' || kind === 'mcp') {
        this.internal.push(toolCall);
        continue;
      }
      const index = this.nextIndex++;
      const done = toolCallItem(toolCall, kind, this.options.skeleton.id, index, this.options.tools.namespaced);
      this.emit(events, { type: 'response.output_item.added', output_index: index, item: { ...done, status: 'in_progress' } as ResponsesOutputItem });
      this.emit(events, { type: 'response.output_item.done', output_index: index, item: done });
      this.output.push(done);
      this.clientCalls += 1;
      call.state = 'closed';
    }
    this.phase = 'turn_finished';
  }

  private liveClosable(): boolean {
    return this.live === null || this.live.kind !== 'function' || argumentsComplete(this.live.call.arguments);
  }

  private openQueued(item: Queued, events: ResponseStreamEvent[]): void {
    if (item.kind === 'function') this.openFunction(item.call, events);
    else this.openTextLike(item.kind, item.text, events);
  }

  private openTextLike(kind: 'text' | 'reasoning', text: string, events: ResponseStreamEvent[]): void {
    const index = this.nextIndex++;
    let live: Extract<LiveItem, { text: string }>;
    if (kind === 'text') {
      const id = itemId('message', this.options.skeleton.id, index);
      this.emit(events, { type: 'response.output_item.added', output_index: index, item: { type: 'message', id, status: 'in_progress', role: 'assistant', content: [] } });
      this.emit(events, { type: 'response.content_part.added', item_id: id, output_index: index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
      live = { kind: 'message', index, id, text: '' };
    } else {
      const id = itemId('reasoning', this.options.skeleton.id, index);
      this.emit(events, { type: 'response.output_item.added', output_index: index, item: { type: 'reasoning', id, status: 'in_progress', summary: [], content: [] } });
      this.emit(events, { type: 'response.content_part.added', item_id: id, output_index: index, content_index: 0, part: { type: 'reasoning_text', text: '' } });
      live = { kind: 'reasoning', index, id, text: '' };
    }
    this.live = live;
    this.sendText(live, text, events);
  }

  private sendText(live: Extract<LiveItem, { text: string }>, text: string, events: ResponseStreamEvent[]): void {
    live.text += text;
    if (live.kind === 'message') this.emit(events, { type: 'response.output_text.delta', item_id: live.id, output_index: live.index, content_index: 0, delta: text, logprobs: [] });
    else this.emit(events, { type: 'response.reasoning_text.delta', item_id: live.id, output_index: live.index, content_index: 0, delta: text });
  }

  private openFunction(call: TrackedToolCall, events: ResponseStreamEvent[]): void {
    const index = this.nextIndex++;
    const id = itemId('function_call', this.options.skeleton.id, index);
    call.id ??= `call_${this.options.skeleton.id.replace(/^resp_/, '')}_${index}`;
    call.name ??= '';
    call.state = 'live';
    this.emit(events, { type: 'response.output_item.added', output_index: index, item: functionCallItem(id, { id: call.id, type: 'function', function: { name: call.name, arguments: '' } }, 'in_progress', this.options.tools.namespaced) });
    this.live = { kind: 'function', index, id, call };
    this.sendArguments(call, events);
  }

  private sendArguments(call: TrackedToolCall, events: ResponseStreamEvent[]): void {
    if (this.live?.kind !== 'function' || this.live.call !== call || call.sent >= call.arguments.length) return;
    this.emit(events, { type: 'response.function_call_arguments.delta', item_id: this.live.id, output_index: this.live.index, delta: call.arguments.slice(call.sent) });
    call.sent = call.arguments.length;
  }

  private closeLive(events: ResponseStreamEvent[], messageState: 'completed' | 'incomplete'): void {
    const live = this.live;
    if (live === null) return;
    this.live = null;
    if (live.kind === 'reasoning') {
      this.emit(events, { type: 'response.reasoning_text.done', item_id: live.id, output_index: live.index, content_index: 0, text: live.text });
      this.emit(events, { type: 'response.content_part.done', item_id: live.id, output_index: live.index, content_index: 0, part: { type: 'reasoning_text', text: live.text } });
      const item = reasoningItem(live.id, live.text);
      this.emit(events, { type: 'response.output_item.done', output_index: live.index, item });
      this.output.push(item);
      return;
    }
    if (live.kind === 'message') {
      this.emit(events, { type: 'response.output_text.done', item_id: live.id, output_index: live.index, content_index: 0, text: live.text, logprobs: [] });
      this.emit(events, { type: 'response.content_part.done', item_id: live.id, output_index: live.index, content_index: 0, part: { type: 'output_text', text: live.text, annotations: [] } });
      const item = messageItem(live.id, live.text, messageState);
      this.emit(events, { type: 'response.output_item.done', output_index: live.index, item });
      this.output.push(item);
      return;
    }
    const call = live.call;
    call.state = 'closed';
    const item = functionCallItem(live.id, asToolCall(call, live.index), 'completed', this.options.tools.namespaced);
    this.emit(events, { type: 'response.function_call_arguments.done', item_id: live.id, output_index: live.index, name: item.name, arguments: item.arguments });
    this.emit(events, { type: 'response.output_item.done', output_index: live.index, item });
    this.output.push(item);
    this.clientCalls += 1;
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

function asToolCall(call: TrackedToolCall, index: number): ToolCall {
  return { id: call.id ?? `call_${index}`, type: 'function', function: { name: call.name ?? '', arguments: call.arguments } };
}
