import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/errors/gateway-error.js';
import { fromAnthropicResponse } from '../../../../src/translate/anthropic-wire/from-anthropic-response.js';
import { AnthropicStreamMapper, type AnthropicStreamMapperOptions } from '../../../../src/translate/anthropic-wire/stream-mapper.js';
import type { AnthropicStreamEvent } from '../../../../src/translate/anthropic-wire/types.js';
import type { ChatChunk } from '../../../../src/translate/chat/types.js';
import { listRecorded } from '../../../helpers/recorded.js';
import { accumulateAnthropic, foldChunks, recordedStream } from './anthropic-recordings.js';

const options: AnthropicStreamMapperOptions = { providerId: 'claude', created: 1_700_000_000, fallbackId: 'chatcmpl-fallback', fallbackModel: 'fallback-model' };

function run(events: readonly AnthropicStreamEvent[], mapperOptions: Partial<AnthropicStreamMapperOptions> = {}): ChatChunk[] {
  const mapper = new AnthropicStreamMapper({ ...options, ...mapperOptions });
  const chunks: ChatChunk[] = [];
  for (const event of events) chunks.push(...mapper.push(event));
  chunks.push(...mapper.end());
  return chunks;
}

function thrown(action: () => unknown): GatewayError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error('expected a GatewayError');
}

const start: AnthropicStreamEvent = { type: 'message_start', message: { id: 'msg_1', model: 'claude-x', usage: { input_tokens: 10, output_tokens: 1 } } };
const stop: AnthropicStreamEvent[] = [
  { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 5 } },
  { type: 'message_stop' },
];


describe('AnthropicStreamMapper over every recorded Anthropic stream', () => {
  const files = [...listRecorded('anthropic-messages', '.sse'), ...listRecorded('anthropic-messages', '.chunks.jsonl')];

  it('finds the recordings', () => {
    expect(files.length).toBeGreaterThanOrEqual(6);
  });

  describe.each(files)('%s', (file) => {
    it.each([1, 2, 3])('random byte split (seed %i): the mapped stream folds into the non-stream translation of the same message', async (seed) => {
      const { events, eventNames, payloads } = await recordedStream(file, seed);
      // Anthropic's event name always equals the payload type (what the adapter relies on).
      eventNames.forEach((name, position) => {
        if (name !== undefined) expect(name).toBe((payloads[position] as { type: string }).type);
      });
      const chunks = run(events);
      const folded = foldChunks(chunks);
      const expected = fromAnthropicResponse(accumulateAnthropic(events), { created: options.created, fallbackId: options.fallbackId, fallbackModel: options.fallbackModel });
      const message = expected.choices[0]!.message;

      expect(folded.id).toBe(expected.id);
      expect(folded.model).toBe(expected.model);
      expect(folded.content).toBe(message.content ?? '');
      expect(folded.reasoning).toBe(message.reasoning_content ?? '');
      expect(folded.toolCalls.map((call) => ({ id: call.id, name: call.name, input: JSON.parse(call.arguments) }))).toEqual(
        (message.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name, input: JSON.parse(call.function.arguments) })),
      );
      expect(folded.finishReason).toBe(expected.choices[0]!.finish_reason);
      expect(folded.usage).toEqual(expected.usage);

      // Shape: one role chunk first, one finish chunk, then exactly one usage-only chunk last.
      expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
      expect(folded.roleChunks).toBe(1);
      expect(folded.finishChunks).toBe(1);
      expect(folded.usageChunkPositions).toEqual([chunks.length - 1]);
      expect(chunks.at(-1)!.choices).toEqual([]);
      expect(chunks.at(-2)!.choices[0]!.finish_reason).not.toBeNull();
      for (const chunk of chunks) expect(chunk).toMatchObject({ object: 'chat.completion.chunk', created: options.created });
    });
  });

  it('stream-text: text deltas in order, usage from message_delta', async () => {
    const folded = foldChunks(run((await recordedStream('anthropic-messages/stream-text.chunks.jsonl')).events));
    expect(folded.content).toBe("Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?");
    expect(folded.finishReason).toBe('stop');
    expect(folded.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 30, total_tokens: 42, cached_tokens: 0 });
  });

  it('stream-tool-no-args: text, then a tool call whose only input piece is "" still yields arguments "{}"', async () => {
    const chunks = run((await recordedStream('anthropic-messages/stream-tool-no-args.chunks.jsonl')).events);
    const folded = foldChunks(chunks);
    expect(folded.content).toBe("I'll update the issue list for you.");
    expect(folded.toolCalls).toEqual([{ id: 'toolu_01QE1WLsSVp5hy5Q3GmGTmjP', name: 'updateIssueList', arguments: '{}' }]);
    expect(folded.finishReason).toBe('tool_calls');
    // The tool is content block 1 but hub tool call 0.
    const toolDeltas = chunks.flatMap((chunk) => chunk.choices.flatMap((choice) => choice.delta.tool_calls ?? []));
    expect(toolDeltas.every((delta) => delta.index === 0)).toBe(true);
    expect(toolDeltas[0]).toEqual({ index: 0, id: 'toolu_01QE1WLsSVp5hy5Q3GmGTmjP', type: 'function', function: { name: 'updateIssueList', arguments: '' } });
  });

  it('stream-tool-use: arguments arrive in pieces; id, type and name only on the first delta', async () => {
    const chunks = run((await recordedStream('anthropic-messages/stream-tool-use.sse', 7)).events);
    const toolDeltas = chunks.flatMap((chunk) => chunk.choices.flatMap((choice) => choice.delta.tool_calls ?? []));
    expect(toolDeltas.length).toBe(5);
    expect(toolDeltas.slice(1).every((delta) => delta.id === undefined && delta.function?.name === undefined)).toBe(true);
    expect(JSON.parse(foldChunks(chunks).toolCalls[0]!.arguments)).toEqual({ location: 'Paris' });
  });

  it('stream-tool-use-padded: whitespace-padded JSON events parse; tool call 0 at content block 0', async () => {
    const folded = foldChunks(run((await recordedStream('anthropic-messages/stream-tool-use-padded.sse', 11)).events));
    expect(folded.toolCalls).toHaveLength(1);
    expect(JSON.parse(folded.toolCalls[0]!.arguments)).toEqual({ location: 'San Francisco, CA', units: 'f' });
    expect(folded.usage).toMatchObject({ prompt_tokens: 656, completion_tokens: 74 });
  });

  it('stream-thinking: thinking deltas become reasoning_content, the signature is dropped', async () => {
    const chunks = run((await recordedStream('anthropic-messages/stream-thinking.sse', 5)).events);
    const folded = foldChunks(chunks);
    expect(folded.reasoning.startsWith('This is a straightforward question about pedestrian safety.')).toBe(true);
    expect(folded.content.endsWith('prioritize safety over speed when crossing streets.')).toBe(true);
    expect(JSON.stringify(chunks)).not.toContain('EvMCCkYICxgCKkCHP2cSuEdcJK');
    expect(folded.usage).toMatchObject({ prompt_tokens: 43, completion_tokens: 282 });
  });

  it('stream-cache-read: the compaction block is skipped and usage sums both sampling passes', async () => {
    const folded = foldChunks(run((await recordedStream('anthropic-messages/stream-cache-read.sse', 3)).events));
    expect(folded.content).toBe('Hello! 👋');
    expect(folded.content).not.toContain('quick brown fox');
    // iterations: compaction (100 in + 55096 cache read, 83 out) + message (181 in, 8 out).
    expect(folded.usage).toMatchObject({ prompt_tokens: 100 + 55_096 + 181, cached_tokens: 55_096, completion_tokens: 83 + 8, prompt_tokens_details: { cached_tokens: 55_096 } });
  });
});

describe('AnthropicStreamMapper state machine', () => {
  it('ignores ping, signature_delta and unknown events; starts with the role chunk', () => {
    const chunks = run([
      start,
      { type: 'ping' },
      { type: 'unknown', event_type: 'brand_new_event' },
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hmm' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Hi' } },
      { type: 'content_block_stop', index: 1 },
      ...stop,
    ]);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta ?? 'usage')).toEqual([{ role: 'assistant' }, { reasoning_content: 'hmm' }, { content: 'Hi' }, {}, 'usage']);
    expect(chunks[0]).toEqual({ id: 'msg_1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'claude-x', choices: [{ index: 0, delta: { role: 'assistant' }, finish_reason: null }] });
  });

  it('numbers tool calls 0, 1, … over tool calls only, whatever the content block indexes', () => {
    const folded = foldChunks(
      run([
        start,
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Two calls.' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_a', name: 'a', input: {} } },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"x":' } },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '1}' } },
        { type: 'content_block_stop', index: 1 },
        { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_b', name: 'b', input: {} } },
        { type: 'content_block_stop', index: 2 },
        { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } },
        { type: 'message_stop' },
      ]),
    );
    expect(folded.toolCalls).toEqual([
      { id: 'toolu_a', name: 'a', arguments: '{"x":1}' },
      { id: 'toolu_b', name: 'b', arguments: '{}' },
    ]);
    expect(folded.finishReason).toBe('tool_calls');
  });

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
    ['pause_turn', 'stop'],
  ])('stop_reason %s → finish_reason %s', (stopReason, finishReason) => {
    const chunks = run([start, { type: 'message_delta', delta: { stop_reason: stopReason }, usage: { output_tokens: 1 } }, { type: 'message_stop' }]);
    expect(foldChunks(chunks).finishReason).toBe(finishReason);
  });

  it('usage: message_delta counts replace message_start counts; cache reads and writes count as prompt tokens', () => {
    const folded = foldChunks(
      run([
        { type: 'message_start', message: { id: 'm', model: 'c', usage: { input_tokens: 3, cache_read_input_tokens: 1111, cache_creation_input_tokens: 418, output_tokens: 1 } } },
        { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 33 } },
        { type: 'message_stop' },
      ]),
    );
    expect(folded.usage).toEqual({
      prompt_tokens: 1532,
      completion_tokens: 33,
      total_tokens: 1565,
      cached_tokens: 1111,
      reasoning_tokens: 0,
      prompt_tokens_details: { cached_tokens: 1111 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
  });

  it('end() before message_stop → INFERENCE_3105 "ended early"', () => {
    const mapper = new AnthropicStreamMapper(options);
    mapper.push(start);
    mapper.push({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    const error = thrown(() => mapper.end());
    expect(error.code).toBe('INFERENCE_3105');
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/ended early/);
    // Also after message_delta: only message_stop completes a stream.
    const almost = new AnthropicStreamMapper(options);
    almost.push(start);
    almost.push(stop[0]!);
    expect(thrown(() => almost.end()).code).toBe('INFERENCE_3105');
    // And an empty body.
    expect(thrown(() => new AnthropicStreamMapper(options).end()).code).toBe('INFERENCE_3105');
  });

  it.each([
    ['overloaded_error', 'INFERENCE_3105', true],
    ['rate_limit_error', 'INFERENCE_3108', true],
    ['api_error', 'INFERENCE_3105', true],
  ] as const)('error event %s → %s', (type, code, retryable) => {
    const mapper = new AnthropicStreamMapper(options);
    mapper.push(start);
    const error = thrown(() => mapper.push({ type: 'error', payload: { type: 'error', error: { type, message: 'Overloaded' } } }));
    expect(error.code).toBe(code);
    expect(error.retryable).toBe(retryable);
    expect(error.details).toMatchObject({ provider: 'claude', upstream_type: type, upstream_message: 'Overloaded' });
  });

  it('an error event about the prompt length → INFERENCE_3207', () => {
    const error = thrown(() => new AnthropicStreamMapper(options).push({ type: 'error', payload: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' } } }));
    expect(error.code).toBe('INFERENCE_3207');
  });

  it('tool input for a block that never started → INFERENCE_3105', () => {
    const mapper = new AnthropicStreamMapper(options);
    mapper.push(start);
    expect(thrown(() => mapper.push({ type: 'content_block_delta', index: 4, delta: { type: 'input_json_delta', partial_json: '{}' } })).code).toBe('INFERENCE_3105');
  });

  it('a stream without message_start still opens with the role chunk and the fallback id/model', () => {
    const chunks = run([{ type: 'content_block_start', index: 0, content_block: { type: 'text', text: 'Hi' } }, ...stop]);
    expect(chunks[0]).toMatchObject({ id: 'chatcmpl-fallback', model: 'fallback-model', choices: [{ delta: { role: 'assistant' } }] });
    expect(foldChunks(chunks).content).toBe('Hi');
  });

  it('message_stop without message_delta still finishes (stop) with usage; events after message_stop are ignored', () => {
    const mapper = new AnthropicStreamMapper(options);
    const chunks = [...mapper.push(start), ...mapper.push({ type: 'message_stop' }), ...mapper.push({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: 'late' } })];
    chunks.push(...mapper.end());
    const folded = foldChunks(chunks);
    expect(folded.finishReason).toBe('stop');
    expect(folded.content).toBe('');
    expect(folded.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 1 });
  });

  it('structured output: the forced tool streams as content, finish_reason stop', () => {
    const events: AnthropicStreamEvent[] = [
      start,
      { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_j', name: 'Location', input: {} } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"city": "Par' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: 'is"}' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 12 } },
      { type: 'message_stop' },
    ];
    const folded = foldChunks(run(events, { structuredOutputTool: 'Location' }));
    expect(folded.toolCalls).toEqual([]);
    expect(JSON.parse(folded.content)).toEqual({ city: 'Paris' });
    expect(folded.finishReason).toBe('stop');
    // The fold check holds in this mode too.
    const expected = fromAnthropicResponse(accumulateAnthropic(events), { created: 0, fallbackId: 'x', fallbackModel: 'y', structuredOutputTool: 'Location' });
    expect(JSON.parse(expected.choices[0]!.message.content!)).toEqual(JSON.parse(folded.content));
    expect(expected.choices[0]!.finish_reason).toBe('stop');
  });

  it('structured output with an empty input still yields "{}" as content', () => {
    const folded = foldChunks(
      run(
        [
          start,
          { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_j', name: 'json_response', input: {} } },
          { type: 'content_block_stop', index: 0 },
          { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 2 } },
          { type: 'message_stop' },
        ],
        { structuredOutputTool: 'json_response' },
      ),
    );
    expect(folded.content).toBe('{}');
  });
});
