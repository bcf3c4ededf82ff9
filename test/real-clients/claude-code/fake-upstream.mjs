// A scripted upstream on loopback for run.mjs, speaking both wires igw can route Claude Code's
// /v1/messages calls to: Anthropic's Messages API (`POST /v1/messages`, native pass-through) and
// OpenAI chat completions (`POST /v1/chat/completions`, translated). Its "model" runs one tool
// loop: when the last user turn asks for the check command and Bash is offered, it calls Bash with
// TOOL_COMMAND; when the conversation ends in a tool result, it answers `tool said: <result>`;
// otherwise it answers `fake upstream heard: <the last user words>`. Every request is kept.
import { startScriptedUpstream } from '../harness.mjs';

export const TOOL_COMMAND = 'echo igw-tool-loop-ok';
export const TOOL_PROMPT = 'Run the check command with the Bash tool and report what it printed.';

export function startFakeUpstream() {
  return startScriptedUpstream(
    { '/messages': messagesReply, '/chat/completions': chatReply },
    (url) => ({ type: 'error', error: { type: 'not_found_error', message: `no route ${url}` } }),
  );
}

/** The script: a Bash call, or a text answer. */
function decide({ toolResult, toolNames, userText }) {
  if (toolResult !== undefined) return { text: `tool said: ${toolResult.trim()}` };
  if (toolNames.includes('Bash') && userText.includes(TOOL_PROMPT)) return { call: { name: 'Bash', input: { command: TOOL_COMMAND, description: 'Print the igw check marker' } } };
  return { text: `fake upstream heard: ${userText.trim().split('\n').at(-1)}` };
}

function textOf(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part.text === 'string' ? part.text : typeof part.content === 'string' ? part.content : textOf(part.content ?? ''))).join('\n');
  return '';
}

// ---- Anthropic Messages ----

function messagesReply(body, response) {
  const turns = body.messages.filter((message) => message.role !== 'system');
  const last = turns.at(-1);
  const resultBlock = Array.isArray(last?.content) ? last.content.find((block) => block.type === 'tool_result') : undefined;
  const lastUser = [...turns].reverse().find((message) => message.role === 'user');
  const step = decide({ toolResult: resultBlock === undefined ? undefined : textOf(resultBlock.content), toolNames: (body.tools ?? []).map((tool) => tool.name), userText: textOf(lastUser?.content) });
  const block = step.call === undefined ? { type: 'text', text: step.text } : { type: 'tool_use', id: `toolu_fake_${body.messages.length}`, name: step.call.name, input: step.call.input };
  const stopReason = step.call === undefined ? 'end_turn' : 'tool_use';
  const usage = { input_tokens: 40, output_tokens: 8, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
  const message = { id: `msg_fake_${body.messages.length}`, type: 'message', role: 'assistant', model: body.model };
  if (body.stream !== true) {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ ...message, content: [block], stop_reason: stopReason, stop_sequence: null, usage }));
    return;
  }
  const events = [{ type: 'message_start', message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } }];
  if (block.type === 'text') {
    events.push({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    events.push({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: block.text } });
  } else {
    events.push({ type: 'content_block_start', index: 0, content_block: { ...block, input: {} } });
    events.push({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
  }
  events.push({ type: 'content_block_stop', index: 0 });
  events.push({ type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
  events.push({ type: 'message_stop' });
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const event of events) response.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
  response.end();
}

// ---- OpenAI chat completions ----

function chatReply(body, response) {
  const last = body.messages.filter((message) => message.role !== 'system').at(-1);
  const lastUser = [...body.messages].reverse().find((message) => message.role === 'user');
  const step = decide({ toolResult: last?.role === 'tool' ? textOf(last.content) : undefined, toolNames: (body.tools ?? []).map((tool) => tool.function?.name), userText: textOf(lastUser?.content) });
  const base = { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1_700_000_000, model: body.model };
  const usage = { prompt_tokens: 40, completion_tokens: 8, total_tokens: 48 };
  const call = step.call === undefined ? undefined : { id: `call_fake_${body.messages.length}`, type: 'function', function: { name: step.call.name, arguments: JSON.stringify(step.call.input) } };
  const finish = call === undefined ? 'stop' : 'tool_calls';
  if (body.stream !== true) {
    const message = call === undefined ? { role: 'assistant', content: step.text } : { role: 'assistant', content: null, tool_calls: [call] };
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }], usage }));
    return;
  }
  const delta = call === undefined ? { content: step.text } : { tool_calls: [{ index: 0, ...call }] };
  const frames = [
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] },
    { ...base, choices: [], usage },
  ];
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const frame of frames) response.write(`data: ${JSON.stringify(frame)}\n\n`);
  response.end('data: [DONE]\n\n');
}
