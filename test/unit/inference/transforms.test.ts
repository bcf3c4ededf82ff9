import { describe, expect, it } from 'vitest';
import { OutputGuard } from '../../../src/blueprints/output-guard.js';
import { HubUsageTap, MessageEventsTap, RailguardTransform, ResponseEventsTap } from '../../../src/inference/index.js';
import { countTokens } from '../../../src/tokens/tokenizer.js';
import { makeUsage, type ChatChunk, type ChunkChoice } from '../../../src/translate/chat/types.js';

const chunk = (choices: Array<Partial<ChunkChoice> & { delta: ChunkChoice['delta'] }>, usage?: ChatChunk['usage']): ChatChunk => ({
  id: 'c',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: choices.map((choice, index) => ({ index, finish_reason: null, logprobs: null, ...choice })),
  ...(usage === undefined ? {} : { usage }),
});

/** Stage "transforms": the usage tap (reported usage wins; otherwise a count of everything produced). */
describe('HubUsageTap', () => {
  it.each([
    { name: 'reported usage is billed as is', chunks: [chunk([{ delta: { content: 'hello world' } }]), chunk([], makeUsage(7, 3))], usage: { prompt_tokens: 7, completion_tokens: 3 } },
    { name: 'no usage: the prompt count and the output counted', chunks: [chunk([{ delta: { content: 'hello' } }]), chunk([{ delta: { content: ' world' } }])], usage: { prompt_tokens: 11, completion_tokens: countTokens('hello world') } },
    { name: 'tool arguments, reasoning and refusals count as output', chunks: [chunk([{ delta: { reasoning_content: 'hmm', refusal: 'no', tool_calls: [{ index: 0, function: { arguments: '{}' } }] } }])], usage: { prompt_tokens: 11, completion_tokens: countTokens('nohmm{}') } },
    { name: 'nothing streamed: zero output', chunks: [], usage: { prompt_tokens: 11, completion_tokens: 0 } },
  ])('$name', ({ chunks, usage }) => {
    const tap = new HubUsageTap();
    for (const item of chunks) tap.observe(item);
    expect(tap.usage(() => 11)).toMatchObject(usage);
  });
});

/** Stage "transforms": output railguards on a stream, per choice, with early stop once every shown choice is blocked. */
describe('RailguardTransform', () => {
  const guard = () => new OutputGuard([{ message: 'withheld', words: ['secret'] }], {});
  it.each([
    { name: 'clean text passes, the held tail released on the finish', choices: 1, deltas: ['hello there ', 'friend'], text: 'hello there friend', finish: 'stop', exhausted: false },
    { name: 'a match ends the choice as blocked and exhausts a one-choice surface', choices: 1, deltas: ['the ', 'secret ', 'more'], text: 'withheld', finish: 'blocked', exhausted: true },
    { name: 'with two choices shown, one blocked choice does not stop the stream', choices: 2, deltas: ['the ', 'secret '], text: 'withheld', finish: 'blocked', exhausted: false },
  ])('$name', ({ choices, deltas, text, finish, exhausted }) => {
    const transform = new RailguardTransform(guard(), choices);
    const passed: ChatChunk[] = [];
    for (const delta of deltas) {
      const item = chunk([{ delta: { content: delta }, logprobs: { content: [] } }]);
      if (transform.apply(item)) passed.push(item);
      if (transform.exhausted) break;
    }
    if (!transform.exhausted) {
      const end = chunk([{ delta: {}, finish_reason: 'stop' }]);
      if (transform.apply(end)) passed.push(end);
    }
    passed.push(...transform.flush());
    expect(passed.map((item) => item.choices[0]?.delta.content ?? '').join('')).toBe(text);
    expect(passed.at(-1)!.choices[0]!.finish_reason).toBe(finish);
    expect(passed.every((item) => item.choices.every((choice) => choice.logprobs === null))).toBe(true);
    expect(transform.exhausted).toBe(exhausted);
  });

  it('flush releases the held text of a choice the upstream never finished', () => {
    const transform = new RailguardTransform(guard());
    expect(transform.apply(chunk([{ delta: { content: 'unfinished' } }]))).toBe(true);
    expect(transform.flush().map((item) => item.choices[0]!.delta.content)).toEqual(['nished']);
  });

  it('a usage-only chunk passes untouched', () => {
    const transform = new RailguardTransform(guard());
    expect(transform.apply(chunk([], makeUsage(1, 1)))).toBe(true);
  });
});

/** Stage "transforms": the usage taps of the native pass-through wires. */
describe('native usage taps', () => {
  it.each([
    {
      name: 'Messages: usage folded from message_start and the cumulative message_delta; stop seen',
      events: [
        { type: 'message_start', payload: { message: { usage: { input_tokens: 9, output_tokens: 1 } } } },
        { type: 'content_block_delta', payload: { delta: { text: 'hello' } } },
        { type: 'message_delta', payload: { usage: { output_tokens: 4 } } },
        { type: 'message_stop', payload: {} },
      ],
      usage: [9, 4],
      stopped: true,
    },
    {
      name: 'Messages: no usage reported → the input count and the streamed text counted; no stop',
      events: [{ type: 'content_block_delta', payload: { delta: { text: 'hello world' } } }],
      usage: [5, countTokens('hello world')],
      stopped: false,
    },
  ])('$name', ({ events, usage, stopped }) => {
    const tap = new MessageEventsTap();
    for (const event of events) tap.observe(event);
    const billed = tap.usage(() => 5);
    expect([billed.prompt_tokens, billed.completion_tokens]).toEqual(usage);
    expect(tap.stopped).toBe(stopped);
  });

  it.each([
    {
      name: 'Responses: the final snapshot usage, the last sequence number and the final event',
      events: [
        { type: 'response.created', payload: { sequence_number: 0, response: { usage: null } } },
        { type: 'response.completed', payload: { sequence_number: 7, response: { usage: { input_tokens: 3, output_tokens: 2 } } } },
      ],
      usage: [3, 2],
      sequence: 7,
      final: 'response.completed',
    },
    { name: 'Responses: a stream cut short: zero usage, no final event', events: [{ type: 'response.output_text.delta', payload: { sequence_number: 2, delta: 'x' } }], usage: [0, 0], sequence: 2, final: undefined },
  ])('$name', ({ events, usage, sequence, final }) => {
    const tap = new ResponseEventsTap();
    for (const event of events) tap.observe(event as never);
    const billed = tap.usage();
    expect([billed.prompt_tokens, billed.completion_tokens]).toEqual(usage);
    expect(tap.sequence).toBe(sequence);
    expect(tap.final?.type).toBe(final);
  });
});
