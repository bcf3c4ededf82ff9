import type { ChunkToolCallDelta } from '../chat/types.js';

/** One streamed tool call as far as it has arrived. */
export interface TrackedToolCall {
  /** Key of the call: the hub index, or a position assigned by id when a delta has no index. */
  key: number;
  id: string | undefined;
  name: string | undefined;
  /** All argument text received so far. */
  arguments: string;
  /** How much of `arguments` has been sent on (the rest is held back). */
  sent: number;
  /** Where its block stands in the surface stream. */
  state: 'pending' | 'live' | 'closed';
  /** Arrival order of its first delta (pending calls open in this order). */
  order: number;
}

/**
 * index → id/name/arguments buffering for streamed tool calls (shared by the stream mappers).
 * Deltas may split the arguments or send them whole; a delta without `index` (Mistral-style,
 * should the hub ever pass one) is matched by id, else continues the latest call.
 */
export class ToolCallTracker {
  private readonly calls = new Map<number, TrackedToolCall>();
  private readonly keyById = new Map<string, number>();
  private latest: number | undefined;
  private arrivals = 0;

  /** Records a delta and returns its call. */
  record(delta: ChunkToolCallDelta): TrackedToolCall {
    const key = this.keyOf(delta);
    let call = this.calls.get(key);
    if (call === undefined) {
      call = { key, id: undefined, name: undefined, arguments: '', sent: 0, state: 'pending', order: this.arrivals++ };
      this.calls.set(key, call);
    }
    if (delta.id !== undefined && delta.id !== '' && call.id === undefined) {
      call.id = delta.id;
      this.keyById.set(delta.id, key);
    }
    if (delta.function?.name !== undefined && delta.function.name !== '' && call.name === undefined) call.name = delta.function.name;
    if (delta.function?.arguments !== undefined) call.arguments += delta.function.arguments;
    this.latest = key;
    return call;
  }

  /** Calls still waiting for a block, in arrival order. */
  pending(): TrackedToolCall[] {
    return [...this.calls.values()].filter((call) => call.state === 'pending').sort((a, b) => a.order - b.order);
  }

  all(): TrackedToolCall[] {
    return [...this.calls.values()].sort((a, b) => a.order - b.order);
  }

  private keyOf(delta: ChunkToolCallDelta): number {
    if (typeof delta.index === 'number') return delta.index;
    if (delta.id !== undefined && delta.id !== '') {
      const known = this.keyById.get(delta.id);
      if (known !== undefined) return known;
      return this.nextFreeKey();
    }
    return this.latest ?? this.nextFreeKey();
  }

  private nextFreeKey(): number {
    let key = this.calls.size;
    while (this.calls.has(key)) key += 1;
    return key;
  }
}

/**
 * Whether streamed arguments already form a complete JSON value: then the call is finished (any
 * more text would make it invalid), so its block may close when other output arrives. Parsing is
 * only tried when the text ends like a JSON object or array, so long arguments stay cheap.
 */
export function argumentsComplete(text: string): boolean {
  const trimmed = text.trimEnd();
  if (!trimmed.endsWith('}') && !trimmed.endsWith(']')) return false;
  try {
    JSON.parse(trimmed);
    return true;
  } catch {
    return false;
  }
}
