import { Ajv2020 } from 'ajv/dist/2020.js';
import { ChatCompletionStream } from 'openai/lib/ChatCompletionStream';
import { describe, expect, it } from 'vitest';
import { echoChatChunks, echoChatResponse } from '../../../../src/providers/local/echo-chat.js';
import { countChatPromptTokens, countTokens } from '../../../../src/tokens/tokenizer.js';
import type { ChatChunk, ChatRequest, ChatResponse } from '../../../../src/translate/chat/types.js';

const IDENTITY = { id: 'chatcmpl-test', created: 1_767_225_600, model: 'local-echo' };
const TEXT = 'The quick brown fox jumps over the lazy dog. Then it sleeps.';
const ajv = new Ajv2020({ strict: true, strictTypes: false });

const request = (overrides: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'local-echo',
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'an earlier question' },
    { role: 'assistant', content: 'an earlier answer' },
    { role: 'user', content: TEXT },
  ],
  ...overrides,
});

const WEATHER_PARAMETERS = {
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 1 },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    days: { type: 'integer', minimum: 1, maximum: 14 },
  },
  required: ['city', 'unit'],
  additionalProperties: false,
};
const TOOLS: ChatRequest['tools'] = [
  { type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } } },
  { type: 'function', function: { name: 'get_weather', parameters: WEATHER_PARAMETERS } },
];

/** Folds chunks through the official SDK's stream helper, as a client would. */
async function foldWithSdk(chunks: ChatChunk[]) {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(`${JSON.stringify(chunk)}\n`));
      controller.close();
    },
  });
  return ChatCompletionStream.fromReadableStream(body).finalChatCompletion();
}

const content = (response: ChatResponse, index = 0) => response.choices[index]!.message.content;

describe('local-echo answers', () => {
  it.each<{ name: string; overrides: Partial<ChatRequest>; content: string; finish: string }>([
    { name: 'plain echo of the last user message', overrides: {}, content: TEXT, finish: 'stop' },
    { name: 'max_tokens truncates with finish length', overrides: { max_tokens: 4 }, content: 'The quick brown fox', finish: 'length' },
    { name: 'max_completion_tokens wins over max_tokens', overrides: { max_tokens: 2, max_completion_tokens: 3 }, content: 'The quick brown', finish: 'length' },
    { name: 'max_tokens larger than the answer', overrides: { max_tokens: 1000 }, content: TEXT, finish: 'stop' },
    { name: 'stop string cuts before it', overrides: { stop: ' jumps' }, content: 'The quick brown fox', finish: 'stop' },
    { name: 'earliest of several stop strings', overrides: { stop: ['lazy', 'brown'] }, content: 'The quick ', finish: 'stop' },
    { name: 'stop before the max_tokens limit', overrides: { stop: 'quick', max_tokens: 4 }, content: 'The ', finish: 'stop' },
    { name: 'max_tokens before the stop string', overrides: { stop: 'sleeps', max_tokens: 2 }, content: 'The quick', finish: 'length' },
    { name: 'tool_choice auto answers with text', overrides: { tools: TOOLS, tool_choice: 'auto' }, content: TEXT, finish: 'stop' },
    { name: 'tool_choice none answers with text', overrides: { tools: TOOLS, tool_choice: 'none' }, content: TEXT, finish: 'stop' },
    { name: 'json_object wraps the echo', overrides: { response_format: { type: 'json_object' } }, content: JSON.stringify({ echo: TEXT }), finish: 'stop' },
  ])('$name', ({ overrides, content: expected, finish }) => {
    const response = echoChatResponse(request(overrides), IDENTITY);
    expect(response).toMatchObject({ id: IDENTITY.id, object: 'chat.completion', created: IDENTITY.created, model: 'local-echo' });
    expect(content(response)).toBe(expected);
    expect(response.choices[0]!.finish_reason).toBe(finish);
    expect(response.choices[0]!.message.tool_calls).toBeNull();
    expect(response.usage.completion_tokens).toBe(countTokens(expected));
    expect(response.usage.prompt_tokens).toBe(countChatPromptTokens(request(overrides).messages));
    expect(response.usage.total_tokens).toBe(response.usage.prompt_tokens + response.usage.completion_tokens);
  });

  it('joins the text parts of the last user message and ignores images', () => {
    const response = echoChatResponse(
      request({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'first' },
              { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
              { type: 'text', text: 'second' },
            ],
          },
          { role: 'assistant', content: 'ignored' },
        ],
      }),
      IDENTITY,
    );
    expect(content(response)).toBe('first\nsecond');
  });

  it('answers an empty string when there is no user message', () => {
    const response = echoChatResponse(request({ messages: [{ role: 'system', content: 'alone' }] }), IDENTITY);
    expect(content(response)).toBe('');
    expect(response.usage.completion_tokens).toBe(0);
  });

  it('returns n identical choices and bills each', () => {
    const response = echoChatResponse(request({ n: 3 }), IDENTITY);
    expect(response.choices.map((choice) => choice.index)).toEqual([0, 1, 2]);
    expect(new Set(response.choices.map((choice) => choice.message.content))).toEqual(new Set([TEXT]));
    expect(response.usage.completion_tokens).toBe(3 * countTokens(TEXT));
  });

  it.each([
    { top: undefined, expectedTop: 0 },
    { top: 0, expectedTop: 0 },
    { top: 2, expectedTop: 1 },
  ])('logprobs: one certain entry per token (top_logprobs $top)', ({ top, expectedTop }) => {
    const response = echoChatResponse(request({ logprobs: true, top_logprobs: top }), IDENTITY);
    const entries = response.choices[0]!.logprobs!.content!;
    expect(entries).toHaveLength(countTokens(TEXT));
    expect(entries.map((entry) => entry.token).join('')).toBe(TEXT);
    for (const entry of entries) {
      expect(entry.logprob).toBe(0);
      expect(entry.bytes).toEqual([...Buffer.from(entry.token, 'utf8')]);
      expect(entry.top_logprobs).toHaveLength(expectedTop);
      if (expectedTop > 0) expect(entry.top_logprobs[0]).toEqual({ token: entry.token, logprob: 0, bytes: entry.bytes });
    }
  });

  it('omits logprobs unless asked', () => {
    expect(echoChatResponse(request(), IDENTITY).choices[0]!.logprobs).toBeNull();
  });

  it.each([
    { name: 'required → the first tool', toolChoice: 'required' as const, tool: 'lookup' },
    { name: 'named → that tool', toolChoice: { type: 'function' as const, function: { name: 'get_weather' } }, tool: 'get_weather' },
  ])('tool_choice $name, with arguments valid against its schema', ({ toolChoice, tool }) => {
    const response = echoChatResponse(request({ tools: TOOLS, tool_choice: toolChoice }), IDENTITY);
    const choice = response.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    const call = choice.message.tool_calls![0]!;
    expect(call).toMatchObject({ type: 'function', function: { name: tool } });
    expect(call.id).toMatch(/^call_[0-9a-f]{24}$/);
    const schema = TOOLS!.find((candidate) => candidate.function.name === tool)!.function.parameters!;
    const validate = ajv.compile(schema);
    expect(validate(JSON.parse(call.function.arguments))).toBe(true);
    expect(response.usage.completion_tokens).toBe(countTokens(call.function.arguments));
    // Deterministic: the same request gives the same call.
    expect(echoChatResponse(request({ tools: TOOLS, tool_choice: toolChoice }), IDENTITY).choices[0]!.message.tool_calls).toEqual([call]);
  });

  it('gives a tool without parameters an empty arguments object', () => {
    const response = echoChatResponse(request({ tools: [{ type: 'function', function: { name: 'ping' } }], tool_choice: 'required' }), IDENTITY);
    expect(response.choices[0]!.message.tool_calls![0]!.function.arguments).toBe('{}');
  });

  it('refuses a named tool_choice that is not among the tools', () => {
    expect(() => echoChatResponse(request({ tools: TOOLS, tool_choice: { type: 'function', function: { name: 'nope' } } }), IDENTITY)).toThrow(
      expect.objectContaining({ code: 'VALIDATION_4005' }),
    );
  });

  it('json_schema response format emits JSON valid against the schema', () => {
    const schema = {
      type: 'object',
      properties: { answer: { type: 'string' }, confidence: { type: 'number', minimum: 0, maximum: 1 }, tags: { type: 'array', items: { type: 'string' } } },
      required: ['answer', 'confidence', 'tags'],
      additionalProperties: false,
    };
    const response = echoChatResponse(request({ response_format: { type: 'json_schema', json_schema: { name: 'answer', schema, strict: true } } }), IDENTITY);
    const parsed: unknown = JSON.parse(content(response)!);
    expect(ajv.compile(schema)(parsed)).toBe(true);
    expect(parsed).toMatchObject({ answer: TEXT });
  });
});

describe('local-echo streaming', () => {
  const streamCases: Array<{ name: string; overrides: Partial<ChatRequest> }> = [
    { name: 'plain', overrides: {} },
    { name: 'max_tokens', overrides: { max_tokens: 5 } },
    { name: 'stop', overrides: { stop: ['lazy'] } },
    { name: 'n = 2', overrides: { n: 2 } },
    { name: 'include_usage', overrides: { n: 2, stream_options: { include_usage: true } } },
    { name: 'logprobs', overrides: { logprobs: true, top_logprobs: 1 } },
    { name: 'emoji split across tokens', overrides: { messages: [{ role: 'user', content: 'birds 🦜🦩 and 𓀀' }] } },
    { name: 'forced tool call', overrides: { tools: TOOLS, tool_choice: { type: 'function', function: { name: 'get_weather' } } } },
    { name: 'json_schema', overrides: { response_format: { type: 'json_schema', json_schema: { name: 'w', schema: WEATHER_PARAMETERS } } } },
  ];

  it.each(streamCases)('$name: the SDK folds the chunks into the non-stream answer', async ({ overrides }) => {
    const body = request({ ...overrides, stream: true });
    const expected = echoChatResponse(body, IDENTITY);
    const folded = await foldWithSdk([...echoChatChunks(body, IDENTITY)]);
    expect(folded.choices).toHaveLength(expected.choices.length);
    for (const [index, choice] of expected.choices.entries()) {
      const streamed = folded.choices[index]!;
      expect(streamed.finish_reason).toBe(choice.finish_reason);
      expect(streamed.message.content).toBe(choice.message.content);
      expect(streamed.message.tool_calls ?? null).toEqual(choice.message.tool_calls);
      if (choice.logprobs?.content) expect(streamed.logprobs?.content).toEqual(choice.logprobs.content);
    }
    if (body.stream_options?.include_usage) expect(folded.usage).toEqual(expected.usage);
  });

  it('sends a role chunk, one chunk per token, then a finish chunk', () => {
    const chunks = [...echoChatChunks(request({ logprobs: true }), IDENTITY)];
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: '' });
    const tokenChunks = chunks.slice(1, -1);
    expect(tokenChunks).toHaveLength(countTokens(TEXT));
    for (const chunk of tokenChunks) expect(chunk.choices[0]!.logprobs!.content).toHaveLength(1);
    expect(chunks.at(-1)!.choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.id === IDENTITY.id && !('usage' in chunk))).toBe(true);
  });

  it('streams a tool call as a header then argument pieces', () => {
    const chunks = [...echoChatChunks(request({ tools: TOOLS, tool_choice: 'required' }), IDENTITY)];
    const header = chunks[0]!.choices[0]!.delta.tool_calls![0]!;
    expect(header).toMatchObject({ index: 0, type: 'function', function: { name: 'lookup', arguments: '' } });
    expect(header.id).toMatch(/^call_/);
    const pieces = chunks.slice(1, -1).map((chunk) => chunk.choices[0]!.delta.tool_calls![0]!.function!.arguments);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.length).toBeLessThanOrEqual(4);
    expect(JSON.parse(pieces.join(''))).toEqual({ query: TEXT });
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('with include_usage ends with a usage chunk without choices', () => {
    const body = request({ n: 2, stream: true, stream_options: { include_usage: true } });
    const chunks = [...echoChatChunks(body, IDENTITY)];
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual(echoChatResponse(body, IDENTITY).usage);
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
  });
});
