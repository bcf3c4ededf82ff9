import { APIError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startTestGateway, type TestGateway } from '../helpers/gateway.js';

/** The official openai SDK's Responses client against igw's built-in local-echo model, offline. */
describe('openai SDK responses against local-echo', () => {
  let igw: TestGateway;
  beforeAll(async () => {
    igw = await startTestGateway();
  });
  afterAll(async () => igw.close());

  const weatherTool = {
    type: 'function' as const,
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
    strict: true,
  };

  it('create: string input → one message item with output_text, usage, billing, store false', async () => {
    const response = await igw.openai().responses.create({ model: 'local-echo', input: 'Hello, responses!', instructions: 'be terse', store: true });
    expect(response.object).toBe('response');
    expect(response.id).toMatch(/^resp_/);
    expect(response.status).toBe('completed');
    expect(response.model).toBe('local-echo');
    expect((response as unknown as { store: boolean }).store).toBe(false);
    expect(response.output).toHaveLength(1);
    const message = response.output[0]!;
    expect(message).toMatchObject({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Hello, responses!', annotations: [] }] });
    expect(response.output_text).toBe('Hello, responses!');
    expect(response.usage!.input_tokens).toBeGreaterThan(0);
    expect(response.usage!.output_tokens).toBeGreaterThan(0);
    expect(response.usage!.total_tokens).toBe(response.usage!.input_tokens + response.usage!.output_tokens);
    const extra = response as unknown as { environment_impact: Record<string, unknown>; billing_cost: Record<string, unknown> };
    expect(extra.environment_impact).toMatchObject({ provider_id: 'local' });
    expect(extra.billing_cost).toEqual({ energy: '0', credits: '0', paid_with: 'energy' });
  });

  it('create: max_output_tokens stops early and says so', async () => {
    const response = await igw.openai().responses.create({ model: 'local-echo', input: 'one two three four five six seven', max_output_tokens: 2 });
    expect(response.status).toBe('completed');
    expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(response.output[0]).toMatchObject({ type: 'message', status: 'incomplete' });
    expect(response.usage!.output_tokens).toBe(2);
  });

  it('function tool round trip: function_call item, then function_call_output → text answer', async () => {
    const client = igw.openai();
    const first = await client.responses.create({ model: 'local-echo', input: 'Weather in Paris?', tools: [weatherTool], tool_choice: 'required' });
    expect(first.status).toBe('completed');
    expect(first.output).toHaveLength(1);
    const call = first.output[0]!;
    if (call.type !== 'function_call') throw new Error(`expected a function_call, got ${call.type}`);
    expect(call.name).toBe('get_weather');
    expect(call.call_id).toMatch(/^call_/);
    expect(call.id).toMatch(/^fc_/);
    expect(typeof JSON.parse(call.arguments).city).toBe('string');

    const second = await client.responses.create({
      model: 'local-echo',
      tools: [weatherTool],
      input: [{ role: 'user', content: 'Weather in Paris?' }, call, { type: 'function_call_output', call_id: call.call_id, output: '{"temp_c": 21}' }],
    });
    expect(second.status).toBe('completed');
    // local-echo answers with the last user text.
    expect(second.output_text).toBe('Weather in Paris?');
  });

  it('client-executed tools: shell_call and apply_patch_call items, then their outputs sent back', async () => {
    const client = igw.openai();
    const tools = [{ type: 'shell' as const }, { type: 'apply_patch' as const }];
    const shell = await client.responses.create({ model: 'local-echo', input: 'list the files', tools, tool_choice: { type: 'shell' } });
    const call = shell.output[0]!;
    if (call.type !== 'shell_call') throw new Error(`expected a shell_call, got ${call.type}`);
    expect(call.id).toMatch(/^sh_/);
    expect(Array.isArray(call.action.commands)).toBe(true);
    const patch = await client.responses.create({ model: 'local-echo', input: 'fix the typo', tools, tool_choice: { type: 'apply_patch' } });
    const patchCall = patch.output[0]!;
    if (patchCall.type !== 'apply_patch_call') throw new Error(`expected an apply_patch_call, got ${patchCall.type}`);
    expect(['create_file', 'update_file', 'delete_file']).toContain(patchCall.operation.type);

    const followUp = await client.responses.create({
      model: 'local-echo',
      tools,
      input: [
        { role: 'user', content: 'list the files' },
        call,
        { type: 'shell_call_output', call_id: call.call_id, output: [{ stdout: 'README.md\n', stderr: '', outcome: { type: 'exit', exit_code: 0 } }] },
        patchCall,
        { type: 'apply_patch_call_output', call_id: patchCall.call_id, status: 'completed', output: 'patched' },
      ],
    });
    expect(followUp.output_text).toBe('list the files');
  });

  it('named tool_choice and parallel_tool_calls reach the model', async () => {
    const response = await igw.openai().responses.create({
      model: 'local-echo',
      input: 'x',
      tools: [weatherTool, { type: 'function', name: 'other', parameters: { type: 'object', properties: {} }, strict: false }],
      tool_choice: { type: 'function', name: 'other' },
      parallel_tool_calls: false,
    });
    expect(response.output[0]).toMatchObject({ type: 'function_call', name: 'other', arguments: '{}' });
    expect(response.parallel_tool_calls).toBe(false);
  });

  it('text.format json_schema → JSON output valid for the schema', async () => {
    const response = await igw.openai().responses.create({
      model: 'local-echo',
      input: 'x',
      text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false }, strict: true } },
    });
    expect(Number.isInteger(JSON.parse(response.output_text).n)).toBe(true);
  });

  /** The same answer from two calls: ids and timestamps differ per call, nothing else may. */
  const comparable = (response: unknown): unknown => {
    const { id, created_at: _created, output_text: _text, output_parsed: _parsed, ...rest } = response as Record<string, unknown> & { id: string };
    const bare = id.replace(/^resp_/, '');
    const text = JSON.stringify(rest).split(bare).join('ID');
    // The SDK's stream helper adds parsed placeholders to items; create() does not.
    return JSON.parse(text, (key, value) => (key === 'parsed' || key === 'parsed_arguments' ? undefined : value));
  };

  it.each([
    ['text', { input: 'Streaming through the responses surface, token by token.' }],
    ['forced function call', { input: 'Weather in Paris?', tools: [weatherTool], tool_choice: 'required' as const }],
    ['max_output_tokens', { input: 'one two three four five six seven', max_output_tokens: 3 }],
    ['shell and apply_patch', { input: 'fix it', tools: [{ type: 'shell' as const }, { type: 'apply_patch' as const }], tool_choice: { type: 'apply_patch' as const } }],
  ])('stream (%s): finalResponse() equals the non-stream answer, billing included', async (_name, body) => {
    const client = igw.openai();
    const request = { model: 'local-echo', ...body } as Parameters<typeof client.responses.create>[0] & { stream?: false };
    const plain = await client.responses.create(request);
    const stream = client.responses.stream(request as never);
    const types: string[] = [];
    stream.on('event', (event) => types.push(event.type));
    const final = await stream.finalResponse();
    expect(comparable(final)).toEqual(comparable(plain));
    expect((final as unknown as { billing_cost: unknown }).billing_cost).toEqual({ energy: '0', credits: '0', paid_with: 'energy' });
    expect(types.slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
    expect(types[types.length - 1]).toBe('response.completed');
  });

  it('stream: text arrives as output_text.delta events in order', async () => {
    const stream = igw.openai().responses.stream({ model: 'local-echo', input: 'alpha beta gamma delta' });
    let text = '';
    const sequence: number[] = [];
    for await (const event of stream) {
      sequence.push(event.sequence_number);
      if (event.type === 'response.output_text.delta') text += event.delta;
    }
    expect(text).toBe('alpha beta gamma delta');
    expect(sequence).toEqual(sequence.map((_value, index) => index));
  });

  it('stream: function call arguments stream as deltas and fold into the item', async () => {
    const stream = igw.openai().responses.stream({ model: 'local-echo', input: 'Weather in Rome?', tools: [weatherTool], tool_choice: 'required' });
    let deltas = 0;
    stream.on('response.function_call_arguments.delta', () => (deltas += 1));
    const final = await stream.finalResponse();
    expect(deltas).toBeGreaterThan(0);
    expect(final.output[0]).toMatchObject({ type: 'function_call', name: 'get_weather', status: 'completed' });
  });

  describe('rejections', () => {
    const rejected = async (body: Record<string, unknown>): Promise<APIError> => {
      try {
        await igw.openai().responses.create(body as never);
      } catch (error) {
        expect(error).toBeInstanceOf(APIError);
        return error as APIError;
      }
      throw new Error('expected a rejection');
    };

    it.each([
      ['previous_response_id', { previous_response_id: 'resp_123' }, 'VALIDATION_4001', 'previous_response_id'],
      ['item_reference', { input: [{ type: 'item_reference', id: 'msg_1' }] }, 'VALIDATION_4005', 'input[0].type'],
      ['computer_use', { tools: [{ type: 'computer_use', display_width: 1, display_height: 1, environment: 'linux' }] }, 'VALIDATION_4005', 'tools[0].type'],
      ['code_interpreter', { tools: [{ type: 'code_interpreter', container: { type: 'auto' } }] }, 'VALIDATION_4005', 'tools[0].type'],
      ['mcp through an OpenAI connector', { tools: [{ type: 'mcp', server_label: 'x', connector_id: 'connector_gmail' }] }, 'VALIDATION_4005', 'tools[0].connector_id'],
      ['temperature out of range', { temperature: 2.5 }, 'VALIDATION_4005', 'temperature'],
      ['penalty out of range', { presence_penalty: 2.5 }, 'VALIDATION_4005', 'presence_penalty'],
    ])('%s → 400 with the spec code', async (_name, extra, code, field) => {
      const error = await rejected({ model: 'local-echo', input: 'x', ...extra });
      expect(error.status).toBe(400);
      const body = error.error as { code: string; message: string; details: { field: string } };
      expect(body.code).toBe(code);
      expect(body.details.field).toBe(field);
      if (field === 'tools[0].type') expect(body.message).toContain(`"${(extra as { tools: Array<{ type: string }> }).tools[0]!.type}"`);
    });

    it('unknown model → 404 INFERENCE_3001', async () => {
      const error = await rejected({ model: 'no-such-model', input: 'x' });
      expect(error.status).toBe(404);
      expect((error.error as { code: string }).code).toBe('INFERENCE_3001');
    });

    it('GET and DELETE /v1/responses/{id} → 404', async () => {
      const client = igw.openai();
      await expect(client.responses.retrieve('resp_abc')).rejects.toMatchObject({ status: 404 });
      await expect(client.responses.delete('resp_abc')).rejects.toMatchObject({ status: 404 });
    });

    it('without a key → 401', async () => {
      const answer = await postJson(`${igw.url}/v1/responses`, undefined, { model: 'local-echo', input: 'x' });
      expect(answer.status).toBe(401);
    });
  });
});
