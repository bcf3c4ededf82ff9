import { describe, expect, it } from 'vitest';
import { parseAnthropicResponse } from '../../../../src/providers/anthropic/wire.js';
import { fromAnthropicResponse, type AnthropicResponseOptions } from '../../../../src/translate/anthropic-wire/from-anthropic-response.js';
import type { AnthropicResponse } from '../../../../src/translate/anthropic-wire/types.js';
import { listRecorded, readRecordedJson } from '../../../helpers/recorded.js';
import { recordedResponse } from './anthropic-recordings.js';

const options: AnthropicResponseOptions = { created: 1_700_000_000, fallbackId: 'chatcmpl-fallback', fallbackModel: 'fallback-model' };


describe('fromAnthropicResponse over every recorded Anthropic message', () => {
  const files = listRecorded('anthropic-messages', '.json');

  it('finds the recordings', () => {
    expect(files.length).toBeGreaterThanOrEqual(5);
  });

  it.each(files)('%s: a complete hub response with consistent usage', (file) => {
    const raw = readRecordedJson(file);
    const response = fromAnthropicResponse(recordedResponse(file), options);
    expect(response).toMatchObject({ id: raw.id, object: 'chat.completion', created: options.created, model: raw.model, system_fingerprint: null });
    expect(response.choices).toHaveLength(1);
    const usage = response.usage;
    expect(usage.prompt_tokens).toBe(raw.usage.input_tokens + raw.usage.cache_read_input_tokens + raw.usage.cache_creation_input_tokens);
    expect(usage.completion_tokens).toBe(raw.usage.output_tokens);
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    expect(usage.cached_tokens).toBe(raw.usage.cache_read_input_tokens);
    expect(usage.prompt_tokens_details.cached_tokens).toBe(usage.cached_tokens);
    // Nothing Anthropic-only leaks into the hub object.
    expect(JSON.stringify(response)).not.toMatch(/signature|inference_geo|service_tier|"caller"/);
  });

  it('nonstream-text: text joined, end_turn → stop', () => {
    const response = fromAnthropicResponse(recordedResponse('anthropic-messages/nonstream-text.json'), options);
    expect(response.choices[0]).toEqual({
      index: 0,
      message: { role: 'assistant', content: "Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?", tool_calls: null },
      finish_reason: 'stop',
      logprobs: null,
    });
    expect(response.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 29, total_tokens: 41, cached_tokens: 0, reasoning_tokens: 0 });
  });

  it('nonstream-tool-use: tool_use → tool_calls with the input as a JSON string, content null, finish tool_calls', () => {
    const response = fromAnthropicResponse(recordedResponse('anthropic-messages/nonstream-tool-use.json'), options);
    expect(response.choices[0]!.message).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'toolu_013DU6hV4C1M8dJ32ybQFAFi', type: 'function', function: { name: 'get_weather', arguments: '{"location":"SF","units":"c"}' } }],
    });
    expect(response.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('nonstream-after-tool-result: the final answer after a tool round trip', () => {
    const response = fromAnthropicResponse(recordedResponse('anthropic-messages/nonstream-after-tool-result.json'), options);
    expect(response.choices[0]!.message.content).toBe('The weather in SF is currently **20°C** (68°F) and **Sunny**!');
    expect(response.usage).toMatchObject({ prompt_tokens: 705, completion_tokens: 25 });
  });

  it('nonstream-thinking: the thinking block → reasoning_content (without its signature), text → content', () => {
    const response = fromAnthropicResponse(recordedResponse('anthropic-messages/nonstream-thinking.json'), options);
    const message = response.choices[0]!.message;
    expect(message.reasoning_content).toBe('This is a straightforward question about pedestrian safety. I should provide clear, practical advice about crossing the street safely.');
    expect(message.content!.startsWith("Here's how to cross the street safely:")).toBe(true);
    expect(response.usage).toMatchObject({ prompt_tokens: 43, completion_tokens: 321, reasoning_tokens: 0 });
  });

  it('nonstream-cache-read: prompt = input + cache reads + cache writes; cached = cache reads', () => {
    const response = fromAnthropicResponse(recordedResponse('anthropic-messages/nonstream-cache-read.json'), options);
    expect(response.usage).toEqual({
      prompt_tokens: 3 + 1111 + 418,
      completion_tokens: 33,
      total_tokens: 1532 + 33,
      cached_tokens: 1111,
      reasoning_tokens: 0,
      prompt_tokens_details: { cached_tokens: 1111 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
  });
});

describe('fromAnthropicResponse', () => {
  const message = (overrides: Partial<AnthropicResponse>): AnthropicResponse => ({
    id: 'msg_1',
    model: 'claude-x',
    content: [{ type: 'text', text: 'ok' }],
    stop_reason: 'end_turn',
    usage: { input_tokens: 1, output_tokens: 1 },
    ...overrides,
  });

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
    ['pause_turn', 'stop'],
    [null, 'stop'],
  ])('stop_reason %s → finish_reason %s', (stopReason, finishReason) => {
    expect(fromAnthropicResponse(message({ stop_reason: stopReason }), options).choices[0]!.finish_reason).toBe(finishReason);
  });

  it('joins several text blocks; text around tool calls stays content; unknown and redacted blocks are left out', () => {
    const response = fromAnthropicResponse(
      message({
        content: [
          { type: 'redacted_thinking' },
          { type: 'text', text: 'Let me ' },
          { type: 'text', text: 'check.' },
          { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 'x' } },
          { type: 'unknown', block_type: 'server_tool_use' },
          { type: 'tool_use', id: 'toolu_2', name: 'noargs', input: {} },
        ],
        stop_reason: 'tool_use',
      }),
      options,
    );
    expect(response.choices[0]!.message.content).toBe('Let me check.');
    expect(response.choices[0]!.message.tool_calls!.map((call) => [call.id, call.function.arguments])).toEqual([
      ['toolu_1', '{"q":"x"}'],
      ['toolu_2', '{}'],
    ]);
  });

  it('an empty answer is "" (not null); missing id/model/usage fall back', () => {
    const response = fromAnthropicResponse({ content: [] }, options);
    expect(response).toMatchObject({ id: 'chatcmpl-fallback', model: 'fallback-model', usage: { prompt_tokens: 0, completion_tokens: 0 } });
    expect(response.choices[0]!.message.content).toBe('');
  });

  it('the forced structured-output tool becomes content with finish_reason stop', () => {
    const response = fromAnthropicResponse(
      message({ content: [{ type: 'tool_use', id: 'toolu_1', name: 'Location', input: { city: 'Paris', temperature: 21 } }], stop_reason: 'tool_use' }),
      { ...options, structuredOutputTool: 'Location' },
    );
    expect(response.choices[0]!.message).toEqual({ role: 'assistant', content: '{"city":"Paris","temperature":21}', tool_calls: null });
    expect(response.choices[0]!.finish_reason).toBe('stop');
  });

  it('usage with iterations (server-side compaction) sums every sampling pass', () => {
    const response = fromAnthropicResponse(
      message({
        usage: {
          input_tokens: 181,
          output_tokens: 8,
          cache_read_input_tokens: 0,
          iterations: [
            { input_tokens: 100, output_tokens: 83, cache_read_input_tokens: 55_096, cache_creation_input_tokens: 0 },
            { input_tokens: 181, output_tokens: 8, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
          ],
        },
      }),
      options,
    );
    expect(response.usage).toMatchObject({ prompt_tokens: 55_377, completion_tokens: 91, cached_tokens: 55_096 });
  });
});

describe('parseAnthropicResponse (lenient wire schema)', () => {
  it('keeps unknown block types as "unknown" and strips unknown fields', () => {
    const parsed = parseAnthropicResponse({ id: 'm', content: [{ type: 'compaction', content: 'x' }, { type: 'text', text: 'hi', citations: [] }], usage: { input_tokens: 'many', output_tokens: 2 } });
    expect(parsed).toEqual({ success: true, data: { id: 'm', content: [{ type: 'unknown', block_type: 'compaction' }, { type: 'text', text: 'hi' }], usage: { input_tokens: undefined, output_tokens: 2 } } });
  });

  it('a known block type with a broken shape fails (a tool call must not vanish)', () => {
    expect(parseAnthropicResponse({ content: [{ type: 'tool_use', id: 'toolu_1', input: {} }] }).success).toBe(false);
    expect(parseAnthropicResponse({ content: [{ type: 'text' }] }).success).toBe(false);
    expect(parseAnthropicResponse({ type: 'message' }).success).toBe(false);
  });
});
