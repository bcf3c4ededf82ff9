import type { RailguardRule } from './documents.js';
import { compileMatcher, scan, type CompiledMatcher } from './matchers.js';
import { renderTemplate } from './template.js';

export interface Blocked {
  message: string;
  rule: RailguardRule;
}

/**
 * Output railguards. A whole answer is checked at once (non-stream); a stream goes through
 * `StreamGuard`, which holds back the tail of each choice's text that a match could still
 * cover, so no part of a matching text ever reaches the client.
 */
export class OutputGuard {
  private readonly matchers: Array<CompiledMatcher<RailguardRule>>;
  /** Characters held back at the end of a streamed text (Infinity: the whole text until the end). */
  readonly window: number;

  constructor(
    rules: readonly RailguardRule[],
    private readonly values: Readonly<Record<string, string>>,
  ) {
    this.matchers = rules.map((rule) => compileMatcher(rule));
    this.window = Math.max(0, ...this.matchers.map((matcher) => matcher.maxLength ?? Number.POSITIVE_INFINITY));
  }

  /** The first rule (document order) that the finished text matches (scanned from `from`, earlier text being settled). */
  check(text: string, from = 0): Blocked | undefined {
    for (const matcher of this.matchers) if (scan(matcher, text, true, from).match !== undefined) return this.blocked(matcher);
    return undefined;
  }

  /**
   * Non-final scan for streams (bounded rules only): a settled match, or where the held-back part
   * must start at the latest. Text before `previousLength` was scanned already, so only the part
   * a new match could cover (the last maxLength characters before it, onwards) is scanned again.
   */
  scanOpen(text: string, previousLength: number): { blocked?: Blocked; holdFrom?: number } {
    let holdFrom: number | undefined;
    for (const matcher of this.matchers) {
      const result = scan(matcher, text, false, Math.max(0, previousLength - (matcher.maxLength ?? previousLength)));
      if (result.match !== undefined) return { blocked: this.blocked(matcher) };
      if (result.openStart !== undefined) holdFrom = Math.min(holdFrom ?? result.openStart, result.openStart);
    }
    return holdFrom === undefined ? {} : { holdFrom };
  }

  stream(): StreamGuard {
    return new StreamGuard(this);
  }

  private blocked(matcher: CompiledMatcher<RailguardRule>): Blocked {
    return { message: renderTemplate(matcher.rule.message, this.values), rule: matcher.rule };
  }
}

interface ChoiceState {
  /** The text from `offset` on: the settled start of a long answer is dropped (see CONTEXT). */
  seen: string;
  offset: number;
  /** Absolute position up to which text was sent. */
  released: number;
  blocked: boolean;
}

/**
 * Characters kept before the earliest point a scan starts, so lookbehinds and `\b` still see the
 * real text and `^` (position 0 of the kept text) is never tested by a scan. Dropping the settled
 * start keeps each push proportional to the delta, not to the whole answer.
 */
const CONTEXT = 64;
/** Dropped only in steps of this many characters, so trimming is amortised. */
const TRIM_STEP = 4096;

/** Per-choice hold-back over a streamed answer. */
export class StreamGuard {
  private readonly choices = new Map<number, ChoiceState>();

  constructor(private readonly guard: OutputGuard) {}

  private state(index: number): ChoiceState {
    let state = this.choices.get(index);
    if (state === undefined) {
      state = { seen: '', offset: 0, released: 0, blocked: false };
      this.choices.set(index, state);
    }
    return state;
  }

  isBlocked(index: number): boolean {
    return this.choices.get(index)?.blocked === true;
  }

  /** New text of choice `index`: returns the text that is now safe to send, or the block. */
  push(index: number, text: string): { release: string; blocked?: Blocked } {
    const state = this.state(index);
    if (state.blocked) return { release: '' };
    const previousLength = state.seen.length;
    state.seen += text;
    // An unbounded rule holds the whole text until the end, where it is checked once.
    if (this.guard.window === Number.POSITIVE_INFINITY) return { release: '' };
    const { blocked, holdFrom } = this.guard.scanOpen(state.seen, previousLength);
    if (blocked !== undefined) {
      state.blocked = true;
      return { release: '', blocked };
    }
    // Positions below are relative to `seen`; `released` is absolute.
    const released = state.released - state.offset;
    let safeEnd = state.seen.length - this.guard.window;
    if (holdFrom !== undefined) safeEnd = Math.min(safeEnd, holdFrom);
    safeEnd = Math.max(safeEnd, released);
    // Never split a surrogate pair across two chunks.
    if (safeEnd > released && isHighSurrogate(state.seen.charCodeAt(safeEnd - 1))) safeEnd -= 1;
    const release = state.seen.slice(released, safeEnd);
    state.released = state.offset + safeEnd;
    // Later scans start at (length before the push) − window ≥ released − window: keep CONTEXT before that.
    const keepFrom = safeEnd - this.guard.window - CONTEXT;
    if (keepFrom >= TRIM_STEP) {
      state.seen = state.seen.slice(keepFrom);
      state.offset += keepFrom;
    }
    return { release };
  }

  /** The choice's text is complete: the final check, then the rest of the text. */
  end(index: number): { release: string; blocked?: Blocked } {
    const state = this.state(index);
    if (state.blocked) return { release: '' };
    // Only matches reaching the end are new now, and they start within the last `window` characters.
    const from = this.guard.window === Number.POSITIVE_INFINITY ? 0 : Math.max(0, state.seen.length - this.guard.window - 1);
    const blocked = this.guard.check(state.seen, from);
    if (blocked !== undefined) {
      state.blocked = true;
      return { release: '', blocked };
    }
    const release = state.seen.slice(state.released - state.offset);
    state.released = state.offset + state.seen.length;
    return { release };
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
