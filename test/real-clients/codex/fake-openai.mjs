// A scripted OpenAI-kind upstream on loopback for run.mjs: it speaks both the chat-completions
// wire (what igw translates Codex's requests to) and the Responses wire (what igw passes through
// natively to a provider with "responses_api": true). Its "model" runs one tool loop: without a
// tool result in the conversation it calls Codex's exec_command with TOOL_COMMAND; with one, it
// answers `tool said: <the result>`. Every request is kept for the assertions.
import { startScriptedUpstream } from '../harness.mjs';

export const TOOL_COMMAND = 'echo igw-tool-loop-ok';

export function startFakeOpenAI() {
  return startScriptedUpstream(
    { '/chat/completions': chatReply, '/responses': responsesReply },
    (url) => ({ error: { message: `no route ${url}`, type: 'invalid_request_error', param: null, code: null } }),
  );
}

const usage = { prompt_tokens: 20, completion_tokens: 6, total_tokens: 26 };

function chatReply(body, response) {
  const toolResult = [...body.messages].reverse().find((message) => message.role === 'tool');
  const offered = (body.tools ?? []).some((tool) => tool.function?.name === 'exec_command');
  const base = { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1_700_000_000, model: body.model };
  const frames = [{ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }];
  if (toolResult === undefined && offered) {
    const call = { index: 0, id: 'call_fake_1', type: 'function', function: { name: 'exec_command', arguments: JSON.stringify({ cmd: TOOL_COMMAND }) } };
    frames.push({ ...base, choices: [{ index: 0, delta: { tool_calls: [call] }, finish_reason: null }] });
    frames.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] });
  } else {
    frames.push({ ...base, choices: [{ index: 0, delta: { content: answerText(toolResult?.content) }, finish_reason: null }] });
    frames.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
  }
  frames.push({ ...base, choices: [], usage });
  if (body.stream !== true) {
    const last = frames[1].choices[0].delta;
    const message = last.tool_calls ? { role: 'assistant', content: null, tool_calls: last.tool_calls.map(({ index: _index, ...call }) => call) } : { role: 'assistant', content: last.content };
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: frames[2].choices[0].finish_reason }], usage }));
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const frame of frames) response.write(`data: ${JSON.stringify(frame)}\n\n`);
  response.end('data: [DONE]\n\n');
}

function responsesReply(body, response) {
  const input = Array.isArray(body.input) ? body.input : [];
  const toolResult = [...input].reverse().find((item) => item.type === 'function_call_output');
  const offered = (body.tools ?? []).some((tool) => tool.name === 'exec_command');
  const item =
    toolResult === undefined && offered
      ? { type: 'function_call', id: 'fc_fake_1', call_id: 'call_fake_1', name: 'exec_command', arguments: JSON.stringify({ cmd: TOOL_COMMAND }), status: 'completed' }
      : { type: 'message', id: 'msg_fake_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: answerText(toolResult?.output), annotations: [] }] };
  const responseObject = (status, output) => ({
    id: 'resp_fake_1',
    object: 'response',
    created_at: 1_700_000_000,
    model: body.model,
    status,
    output,
    usage: status === 'completed' ? { input_tokens: 20, input_tokens_details: { cached_tokens: 0 }, output_tokens: 6, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 26 } : null,
  });
  const events = [
    { type: 'response.created', response: responseObject('in_progress', []) },
    { type: 'response.output_item.added', output_index: 0, item: item.type === 'message' ? { ...item, status: 'in_progress', content: [] } : { ...item, status: 'in_progress', arguments: '' } },
    item.type === 'message'
      ? { type: 'response.output_text.delta', item_id: item.id, output_index: 0, content_index: 0, delta: item.content[0].text }
      : { type: 'response.function_call_arguments.delta', item_id: item.id, output_index: 0, delta: item.arguments },
    { type: 'response.output_item.done', output_index: 0, item },
    { type: 'response.completed', response: responseObject('completed', [item]) },
  ];
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  events.forEach((event, index) => response.write(`event: ${event.type}\ndata: ${JSON.stringify({ ...event, sequence_number: index })}\n\n`));
  response.end();
}

function answerText(result) {
  if (result === undefined) return 'no tool was run';
  const text = typeof result === 'string' ? result : JSON.stringify(result);
  return `tool said: ${text}`;
}
