import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OutputGuard } from '../../../src/blueprints/output-guard.js';
import { RailguardTransform } from '../../../src/inference/transforms/railguards.js';
import { HubUsageTap } from '../../../src/inference/transforms/usage-tap.js';
import { ChunkNormalizer } from '../../../src/providers/openai-compatible/normalize-stream.js';
import { ChunkScanner, scanPlainChunk } from '../../../src/providers/openai-compatible/scan-chunk.js';
import { decodeSse } from '../../../src/providers/sse-decode.js';
import { parseEventData, type StreamDialect } from '../../../src/providers/upstream-stream.js';
import { chatChunkWireText, chunkTextOf } from '../../../src/translate/chat/chunk-text.js';
import type { ChatChunk } from '../../../src/translate/chat/types.js';
import { listRecorded, payloadsFromChunksFile, readRecorded } from '../../helpers/recorded.js';

/**
 * The chat stream's fast path (scanPlainChunk → pushScanned → the chunk's ready JSON text) against
 * the path every event took before it (JSON.parse → push → the chat surface rewriting the model
 * and serialising the chunk): the same bytes to the client, the same chunk objects to every other
 * surface, the same usage (billing is computed from it), the same errors. One differing byte fails.
 */

const fallbacks = { providerId: 'acme', id: 'chatcmpl-fallback', created: 1_700_000_000, model: 'fallback-model' };
const dialect: StreamDialect = {
  providerId: 'acme',
  failure: (error) => error,
  errorPayload: (text) => ({ error: { message: text } }),
  errorEnvelope: () => undefined,
};

interface UpstreamEvent {
  data: string;
  event?: string;
}

interface Run {
  /** What the client gets: one `data:` payload per chunk the chat surface sends. */
  wire: string[];
  /** Every hub chunk as made (before the surface rewrites it): what messages/responses read. */
  chunks: unknown[];
  usage: unknown;
  error?: { name: string; message: string; code?: unknown };
  /** Events that took the scanner. */
  scanned: number;
}

function errorOf(error: unknown): Run['error'] {
  const record = error as { name: string; message: string; code?: unknown };
  return { name: record.name, message: record.message, code: record.code };
}

/** The chat surface before the fast path: the client's model on the chunk, usage dropped, JSON.stringify. */
function serialisedAsBefore(chunk: ChatChunk, model: string): string {
  const copy = structuredClone(chunk);
  copy.model = model;
  delete copy.usage;
  return JSON.stringify(copy);
}

function run(events: UpstreamEvent[], sawDone: boolean, model: string, fast: boolean): Run {
  const normalizer = new ChunkNormalizer(fallbacks);
  const scanner = new ChunkScanner();
  const tap = new HubUsageTap();
  const result: Run = { wire: [], chunks: [], usage: undefined, scanned: 0 };
  const modelText = JSON.stringify(model);
  const emit = (made: ChatChunk[]) => {
    for (const chunk of made) {
      result.chunks.push(structuredClone(chunk));
      tap.observe(chunk);
      if (chunk.choices.length === 0) continue;
      result.wire.push(fast ? chatChunkWireText(chunk, model, modelText) : serialisedAsBefore(chunk, model));
    }
  };
  try {
    for (const { data, event } of events) {
      // As the adapter does: unnamed events try the scanner first.
      const scanned = fast && event === undefined ? scanner.scan(data) : undefined;
      if (scanned !== undefined) {
        result.scanned += 1;
        emit(normalizer.pushScanned(scanned));
      } else {
        emit(normalizer.push(parseEventData(data, event, dialect), event));
      }
    }
    emit(normalizer.end(sawDone));
  } catch (error) {
    result.error = errorOf(error);
  }
  result.usage = tap.usage(() => 7);
  return result;
}

function expectSame(events: UpstreamEvent[], sawDone: boolean, model: string): Run {
  const before = run(events, sawDone, model, false);
  const after = run(events, sawDone, model, true);
  expect(after.wire).toEqual(before.wire);
  expect(after.chunks).toEqual(before.chunks);
  expect(after.usage).toEqual(before.usage);
  expect(after.error).toEqual(before.error);
  return after;
}

async function recordedEvents(file: string): Promise<{ events: UpstreamEvent[]; sawDone: boolean }> {
  if (file.endsWith('.chunks.jsonl')) return { events: payloadsFromChunksFile(file).map((data) => ({ data })), sawDone: true };
  async function* body() {
    yield new TextEncoder().encode(readRecorded(file));
  }
  const events: UpstreamEvent[] = [];
  const generator = decodeSse(body());
  for (;;) {
    const step = await generator.next();
    if (step.done === true) return { events, sawDone: step.value.sawDone };
    events.push(step.value.event === undefined ? { data: step.value.data } : { data: step.value.data, event: step.value.event });
  }
}

const recordedStreams = [...listRecorded('openai-chat', '.sse'), ...listRecorded('openai-compatible', '.sse'), ...listRecorded('openai-compatible', '.chunks.jsonl'), ...listRecorded('openai-chat', '.chunks.jsonl')];

describe('chat stream fast path: every recorded stream', () => {
  it.each(recordedStreams)('%s: same bytes, chunks, usage and errors as the parsed path', async (file) => {
    const { events, sawDone } = await recordedEvents(file);
    for (const model of ['gpt-4o-mini', 'team/"quoted" modèle 😀']) expectSame(events, sawDone, model);
  });

  it('the plain text streams are read by the scanner (the comparison is not vacuous)', async () => {
    for (const file of ['openai-chat/stream-text-with-usage.sse', 'openai-compatible/mistral-stream-text.chunks.jsonl', 'openai-compatible/vllm-crusoe-stream-text.sse', 'openai-compatible/deepseek-stream-reasoning.chunks.jsonl']) {
      const { events, sawDone } = await recordedEvents(file);
      const after = run(events, sawDone, 'm', true);
      // All but the usage chunk (and DeepSeek's usage on its finish chunk) take the scanner.
      expect(after.scanned, file).toBeGreaterThanOrEqual(events.length - 2);
      expect(after.wire.length, file).toBeGreaterThan(0);
    }
  });

  it('events that share the template\'s ends but not one plain string between them are read whole', () => {
    const event = (content: string) => `{"id":"a","created":5,"model":"u","choices":[{"index":0,"delta":{"content":${content}},"finish_reason":null}]}`;
    const events = ['"x"', '"y","refusal":"z"', 'null', '"q\\u00e9\\"\\n"', '"p","content":"dup"', '"a"}, "b":{"c":"d"', '"1" ', '"é😀"', '"back\\\\"'].map((content) => ({ data: event(content) }));
    events.push({ data: '{"id":"a","created":5,"model":"u","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}' });
    const after = expectSame(events, true, 'm');
    expect(after.wire.length).toBeGreaterThanOrEqual(6);
    expect(after.scanned).toBeGreaterThanOrEqual(7);
  });

  it('output railguards drop the ready text of a chunk they rewrite, so the client gets what the chunk now holds', () => {
    const normalizer = new ChunkNormalizer(fallbacks);
    const scanned = scanPlainChunk('{"id":"c","created":1,"model":"u","choices":[{"index":0,"delta":{"content":"a secret plan"},"finish_reason":"stop"}]}');
    expect(scanned).toBeDefined();
    const [chunk] = normalizer.pushScanned(scanned!);
    expect(chunkTextOf(chunk!)).toBeDefined();
    const transform = new RailguardTransform(new OutputGuard([{ message: 'withheld', words: ['secret'] }], {}));
    expect(transform.apply(chunk!)).toBe(true);
    expect(chunkTextOf(chunk!)).toBeUndefined();
    const wire = chatChunkWireText(chunk!, 'm', '"m"');
    expect(wire).toContain('"content":"withheld"');
    expect(wire).not.toContain('secret');
  });
});

// ---- generated streams ---------------------------------------------------------------------

/** How one event is written: key order, whitespace, escapes, number spelling, a duplicated key. */
interface Style {
  space: '' | ' ' | '\n' | '\t ';
  escape: 'none' | 'unicode' | 'solidus';
  escapeKeys: boolean;
  numbers: 'plain' | 'fraction' | 'exponent';
  duplicateFirstKey: boolean;
  order: number[];
}

function writeString(value: string, style: Style, isKey: boolean): string {
  if (isKey && !style.escapeKeys) return JSON.stringify(value);
  if (style.escape === 'none' && !isKey) return JSON.stringify(value);
  let out = '"';
  for (let i = 0; i < value.length; i += 1) {
    const code = value.charCodeAt(i);
    const char = value[i]!;
    if (style.escape === 'unicode' || isKey) {
      out += code < 0x20 || code > 0x7e || char === '"' || char === '\\' || (isKey && i === 0) ? `\\u${code.toString(16).padStart(4, '0')}` : char;
    } else {
      out += char === '/' ? '\\/' : JSON.stringify(char).slice(1, -1);
    }
  }
  return `${out}"`;
}

function writeNumber(value: number, style: Style): string {
  if (!Number.isInteger(value) || style.numbers === 'plain') return JSON.stringify(value);
  return style.numbers === 'fraction' ? `${value}.0` : `${value}e0`;
}

function write(value: unknown, style: Style, depth = 0): string {
  const sp = style.space;
  if (typeof value === 'string') return writeString(value, style, false);
  if (typeof value === 'number') return writeNumber(value, style);
  if (value === null || typeof value === 'boolean') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${sp}${value.map((item) => write(item, style, depth + 1)).join(`,${sp}`)}${sp}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
  // A deterministic shuffle from the style's numbers.
  const ordered = entries.map((entry, position) => ({ entry, rank: style.order[(position + depth) % Math.max(1, style.order.length)] ?? position })).sort((a, b) => a.rank - b.rank);
  const members = ordered.map(({ entry: [name, item] }) => `${writeString(name, style, true)}${sp}:${sp}${write(item, style, depth + 1)}`);
  if (style.duplicateFirstKey && depth === 0 && ordered.length > 0) members.unshift(`${writeString(ordered[0]!.entry[0], style, true)}:null`);
  return `{${sp}${members.join(`,${sp}`)}${sp}}`;
}

const text = fc.oneof(
  fc.constantFrom('', ' ', 'Hello', 'a"b', 'back\\slash', 'line\nbreak', 'tab\tx', 'ctl\u0001\u001f', '\u2028\u2029', 'é ü', '😀', 'a/b', '\ud800 lone', '\u007f'),
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary', maxLength: 8 }),
);
const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: null });

const deltaArb = fc.record(
  {
    role: fc.constantFrom('assistant', null),
    content: maybe(text),
    reasoning_content: maybe(text),
    reasoning: maybe(text),
    refusal: maybe(text),
    tool_calls: fc.constantFrom(null, [], [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }]),
    function_call: fc.constant(null),
  },
  { requiredKeys: [] },
);
const choiceArb = fc.record(
  {
    index: fc.oneof(fc.constant(0), fc.nat(3), fc.constant(null)),
    delta: fc.oneof({ weight: 5, arbitrary: deltaArb }, { weight: 1, arbitrary: fc.constant(null) }),
    finish_reason: fc.oneof(fc.constant(null), fc.constantFrom('stop', 'length', 'tool_calls', 'content_filter', 'max_tokens', 'eos', 'function_call', ''), text),
    logprobs: fc.constantFrom(null, { content: [{ token: 'a', logprob: -0.1, bytes: [97], top_logprobs: [] }] }),
    token_ids: fc.constant(null),
    stop_reason: maybe(fc.integer()),
  },
  { requiredKeys: [] },
);
const eventArb = fc.record(
  {
    id: fc.oneof(fc.constant('chatcmpl-1'), maybe(text), fc.constant(42)),
    object: fc.constantFrom('chat.completion.chunk', 'chat.completion.done', null),
    created: fc.oneof(fc.constant(1_700_000_000), fc.nat(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(null)),
    model: fc.oneof(fc.constant('up-model'), maybe(text)),
    system_fingerprint: fc.oneof(fc.constant(null), fc.constant(''), fc.constant('fp_1'), text),
    choices: fc.oneof({ weight: 6, arbitrary: fc.tuple(choiceArb) }, { weight: 2, arbitrary: fc.array(choiceArb, { maxLength: 3 }) }),
    usage: fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.record({ prompt_tokens: fc.nat(), completion_tokens: fc.nat(), total_tokens: fc.nat() }) }),
    service_tier: fc.constantFrom('default', null),
    obfuscation: text,
    sla_metrics: fc.constant({ ttft_ms: 3 }),
    x_groq: fc.constantFrom(null, { id: 'req_1' }),
    error: fc.constantFrom(null, { message: 'overloaded' }),
  },
  { requiredKeys: ['choices'] },
);
/** The events real streams are made of: one choice, nulls where servers put them, no usage. */
const plainDeltaArb = fc.record({ role: fc.constantFrom('assistant', null), content: maybe(text), reasoning_content: maybe(text), refusal: fc.constant(null) }, { requiredKeys: [] });
const plainEventArb = fc.record(
  {
    id: fc.oneof(fc.constant('chatcmpl-1'), maybe(text)),
    object: fc.constant('chat.completion.chunk'),
    created: fc.oneof(fc.constant(1_700_000_000), fc.nat()),
    model: fc.oneof(fc.constant('up-model'), text),
    system_fingerprint: fc.oneof(fc.constant(null), fc.constant('fp_1'), text),
    choices: fc.tuple(
      fc.record(
        {
          index: fc.constantFrom(0, 1),
          delta: plainDeltaArb,
          finish_reason: fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom('stop', 'length', 'max_tokens', 'eos') }),
          logprobs: fc.constant(null),
        },
        { requiredKeys: ['delta'] },
      ),
    ),
    usage: fc.constant(null),
    service_tier: fc.constantFrom('default', null),
    obfuscation: text,
  },
  { requiredKeys: ['choices'] },
);
const styleArb: fc.Arbitrary<Style> = fc.record({
  space: fc.constantFrom('' as const, ' ' as const, '\n' as const, '\t ' as const),
  escape: fc.constantFrom('none' as const, 'unicode' as const, 'solidus' as const),
  escapeKeys: fc.boolean(),
  numbers: fc.constantFrom('plain' as const, 'fraction' as const, 'exponent' as const),
  duplicateFirstKey: fc.boolean(),
  order: fc.array(fc.nat(20), { maxLength: 12 }),
});
/** Mostly plain events in canonical style (what real streams are), then everything else. */
const plainStyle: Style = { space: '', escape: 'none', escapeKeys: false, numbers: 'plain', duplicateFirstKey: false, order: [] };
const eventTextArb = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(plainEventArb, fc.constant(plainStyle)).map(([event, style]) => write(event, style)) },
  { weight: 3, arbitrary: fc.tuple(plainEventArb, styleArb).map(([event, style]) => write(event, style)) },
  { weight: 4, arbitrary: fc.tuple(eventArb, fc.constant(plainStyle)).map(([event, style]) => write(event, style)) },
  { weight: 4, arbitrary: fc.tuple(eventArb, styleArb).map(([event, style]) => write(event, style)) },
  { weight: 1, arbitrary: fc.constantFrom('{"id":', '{"choices":[{"delta":{"content":"x"}}]}x', '[]', 'null', '{"choices":[{"index":-1,"delta":{}}]}', '{"choices":[{"index":1.5}]}', '{"choices":[{"index":01}]}', ' {"choices":[{}]} ', '{"choices":[{"delta":{"content":"\\x"}}]}') },
);
/** A run of events that differ only in their content (what a stream mostly is): the scanner's template path. */
const templateRunArb = fc.tuple(plainEventArb, fc.oneof(fc.constant(plainStyle), styleArb), fc.array(text, { minLength: 1, maxLength: 5 })).map(([event, style, contents]) =>
  contents.map((content) => {
    const copy = structuredClone(event);
    const choice = copy.choices[0];
    if (choice?.delta !== undefined) choice.delta = { ...choice.delta, content };
    return write(copy, style);
  }),
);
const finishText = '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"up","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}';
const usageText = '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"up","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}';

describe('chat stream fast path: generated streams', () => {
  it('every generated stream gives the same bytes, chunks, usage and errors on both paths', () => {
    let scanned = 0;
    fc.assert(
      fc.property(fc.array(fc.oneof(eventTextArb.map((one) => [one]), templateRunArb), { minLength: 1, maxLength: 6 }), fc.boolean(), fc.boolean(), fc.constantFrom('client-model', 'a "b" \\ é 😀\n'), (runs, finish, done, model) => {
        const events: UpstreamEvent[] = runs.flat().map((data) => ({ data }));
        if (finish) events.push({ data: finishText }, { data: usageText });
        scanned += expectSame(events, done, model).scanned;
      }),
      { numRuns: 600 },
    );
    // The generator reaches the scanner (a property that never exercised it would prove nothing).
    expect(scanned).toBeGreaterThan(400);
  });
});
