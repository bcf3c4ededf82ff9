import { describe, expect, it } from 'vitest';
import { makeUsage, type ChatChunk } from '../../../../src/translate/chat/types.js';
import { finishResponse, responseSkeleton, turnOutput } from '../../../../src/translate/responses/chat-to-responses.js';
import { planTools } from '../../../../src/translate/responses/tools.js';
import type { ResponsesRequest, ResponseStreamEvent } from '../../../../src/translate/responses/types.js';
import { accumulateChat } from '../../../../src/translate/stream/accumulate-chat.js';
import { accumulateResponseEvents } from '../../../../src/translate/stream/accumulate-response-events.js';
import { ChatToResponseEvents } from '../../../../src/translate/stream/chat-to-response-events.js';
import { listRecorded, payloadsFromChunksFile, readRecorded, readRecordedJson } from '../../../helpers/recorded.js';
import { recordedHubChunks } from '../../../helpers/recorded-hub-chunks.js';

/**
 * Replay comparison against real OpenAI Responses captures (fixtures/recorded/
 * openai-responses): the output each capture describes is fed to igw's state machine as hub
 * chunks, and igw's events must come in the recorded order, with the recorded fields, folding
 * into the recorded output items. Encrypted reasoning items (no text to carry) are left out.
 */

type Recorded = Record<string, any> & { type: string };

function recordedEvents(file: string): Recorded[] {
  if (file.endsWith('.chunks.jsonl')) return payloadsFromChunksFile(file).map((line) => JSON.parse(line) as Recorded);
  return readRecorded(file)
    .split(/\r?\n\r?\n/)
    .flatMap((frame) => frame.split(/\r?\n/).filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trim()))
    .filter((data) => data !== '' && data !== '[DONE]')
    .map((data) => JSON.parse(data) as Recorded);
}

/**
 * The recorded events without encrypted reasoning items (OpenAI's own reasoning models send no
 * reasoning text: nothing a chat upstream could carry). Reasoning with text stays.
 */
function withoutReasoning(events: Recorded[]): Recorded[] {
  const withText = new Set(events.filter((event) => event.type === 'response.reasoning_text.delta').map((event) => event.output_index as number));
  const encrypted = new Set(events.filter((event) => event.type === 'response.output_item.added' && event.item.type === 'reasoning' && !withText.has(event.output_index)).map((event) => event.output_index as number));
  return events.filter((event) => !(typeof event.output_index === 'number' && encrypted.has(event.output_index)));
}

/** The model output the capture describes, as the hub chunks an OpenAI-compatible upstream would send. */
function hubChunksOf(events: Recorded[]): { chunks: ChatChunk[]; failedWith?: Recorded } {
  const chunks: ChatChunk[] = [];
  const chunk = (delta: ChatChunk['choices'][number]['delta'], finish: ChatChunk['choices'][number]['finish_reason'] = null): ChatChunk => ({
    id: 'chatcmpl-rec',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'rec',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const toolIndex = new Map<number, number>();
  const streamedArguments = new Set<number>();
  let calls = 0;
  for (const event of withoutReasoning(events)) {
    if (event.type === 'error') return { chunks, failedWith: event };
    if (event.type === 'response.output_item.added' && event.item.type === 'function_call') {
      toolIndex.set(event.output_index, calls);
      chunks.push(chunk({ tool_calls: [{ index: calls++, id: event.item.call_id, type: 'function', function: { name: event.item.name, arguments: '' } }] }));
    } else if (event.type === 'response.function_call_arguments.delta') {
      streamedArguments.add(event.output_index);
      chunks.push(chunk({ tool_calls: [{ index: toolIndex.get(event.output_index)!, function: { arguments: event.delta } }] }));
    } else if (event.type === 'response.function_call_arguments.done' && !streamedArguments.has(event.output_index)) {
      // LM Studio sends the arguments whole, without deltas.
      chunks.push(chunk({ tool_calls: [{ index: toolIndex.get(event.output_index)!, function: { arguments: event.arguments } }] }));
    } else if (event.type === 'response.reasoning_text.delta') {
      chunks.push(chunk({ reasoning_content: event.delta }));
    } else if (event.type === 'response.output_text.delta') {
      chunks.push(chunk({ content: event.delta }));
    } else if (event.type === 'response.completed') {
      chunks.push(chunk({}, calls > 0 ? 'tool_calls' : 'stop'));
      const usage = event.response.usage;
      chunks.push({ ...chunk({}), choices: [], usage: makeUsage(usage.input_tokens, usage.output_tokens, usage.input_tokens_details?.cached_tokens ?? 0, usage.output_tokens_details?.reasoning_tokens ?? 0) });
    }
  }
  return { chunks };
}

function requestOf(file: string): ResponsesRequest {
  const requestFile = file.replace(/\.(sse|chunks\.jsonl)$/, '.request.json');
  try {
    return readRecordedJson<ResponsesRequest>(requestFile);
  } catch {
    return { model: 'rec', input: 'x' };
  }
}

function replay(file: string): { ours: ResponseStreamEvent[]; recorded: Recorded[] } {
  const recorded = withoutReasoning(recordedEvents(file));
  const request = requestOf(file);
  const tools = planTools((request.tools ?? []).filter((tool) => tool.type === 'function'));
  const mapper = new ChatToResponseEvents({ skeleton: responseSkeleton(request, { id: 'resp_rec', createdAt: 0, model: request.model }), tools });
  const { chunks, failedWith } = hubChunksOf(recordedEvents(file));
  const ours = chunks.flatMap((chunk) => mapper.push(chunk));
  const usage = chunks.find((chunk) => chunk.usage != null)?.usage ?? null;
  ours.push(...(failedWith === undefined ? mapper.end(usage) : mapper.fail({ code: String(failedWith.error?.code ?? failedWith.code), message: String(failedWith.error?.message ?? failedWith.message) })));
  return { ours, recorded };
}

/** The fields of an output item both sides must agree on (ids and annotations' provenance differ by design). */
function itemEssence(item: Record<string, any>): Record<string, unknown> {
  if (item.type === 'message') return { type: item.type, role: item.role, status: item.status, text: item.content.map((part: { text: string }) => part.text).join('') };
  if (item.type === 'function_call') return { type: item.type, call_id: item.call_id, name: item.name, arguments: item.arguments, status: item.status };
  if (item.type === 'reasoning') return { type: item.type, status: item.status, text: (item.content ?? []).map((part: { text: string }) => part.text).join('') };
  return { type: item.type };
}

const files = [...listRecorded('openai-responses', '.sse'), ...listRecorded('openai-responses', '.chunks.jsonl')];

describe('responses stream replay against recorded OpenAI captures', () => {

  it('finds the captures', () => {
    expect(files.length).toBeGreaterThanOrEqual(4);
  });

  it.each(files)('%s: same event order, recorded fields present, same items', (file) => {
    const replayed = replay(file);
    const recorded = replayed.recorded;
    // LM Studio sends a call's arguments whole, without function_call_arguments.delta (recorded
    // quirk); OpenAI streams them. igw always streams them, so they are compared only where the
    // capture has them.
    const argumentDeltas = recorded.some((event) => event.type === 'response.function_call_arguments.delta');
    const ours = replayed.ours.filter((event) => argumentDeltas || event.type !== 'response.function_call_arguments.delta');
    expect(ours.map((event) => event.type)).toEqual(recorded.map((event) => event.type));
    ours.forEach((event, index) => {
      const theirs = recorded[index]!;
      // Every field the real server sent is there (values such as ids, timestamps and the obfuscation padding aside).
      const missing = Object.keys(theirs).filter((key) => !(key in event) && key !== 'obfuscation');
      expect(missing, `${event.type} lacks ${missing.join(', ')}`).toEqual([]);
      if ('item' in theirs) {
        const item = (event as unknown as { item: Record<string, unknown> }).item;
        expect(Object.keys(theirs.item).filter((key) => !(key in item))).toEqual([]);
      }
      if ('part' in theirs) expect(Object.keys(theirs.part).filter((key) => key !== 'logprobs' && !(key in (event as { part: object }).part))).toEqual([]);
      if ('item' in theirs) expect(itemEssence((event as unknown as { item: Record<string, unknown> }).item)).toEqual(itemEssence(theirs.item));
      if (theirs.type === 'response.output_text.done') expect((event as { text: string }).text).toBe(theirs.text);
      if (theirs.type === 'response.function_call_arguments.done') expect((event as { arguments: string }).arguments).toBe(theirs.arguments);
    });
    const folded = accumulateResponseEvents(replayed.ours);
    const last = recorded[recorded.length - 1]!;
    expect(folded.status).toBe(last.response.status);
    const kept = new Set(recorded.filter((event) => event.type === 'response.output_item.done').map((event) => event.item.id as string));
    const recordedOutput = (last.response.output as Array<Record<string, any>>).filter((item) => kept.has(item.id));
    expect(folded.output.map(itemEssence)).toEqual(recordedOutput.map(itemEssence));
    if (last.response.usage != null) expect(folded.usage).toMatchObject({ input_tokens: last.response.usage.input_tokens, output_tokens: last.response.usage.output_tokens, total_tokens: last.response.usage.total_tokens });
  });
});

/** Real OpenAI chat streams through the responses state machine: the fold equals the non-stream translation of the same answer. */
const chatFiles = [...listRecorded('openai-chat', '.sse'), ...listRecorded('openai-chat', '.chunks.jsonl'), ...listRecorded('openai-compatible', '.chunks.jsonl')];


describe('recorded chat streams: responses events fold to the non-stream answer', () => {
  it.each(chatFiles)('%s', async (file) => {
    const chunks = await recordedHubChunks(file);
    if (chunks === undefined) return;
    const request: ResponsesRequest = { model: 'rec', input: 'x' };
    const skeleton = responseSkeleton(request, { id: 'resp_rec', createdAt: 0, model: 'rec' });
    const mapper = new ChatToResponseEvents({ skeleton, tools: planTools(undefined) });
    const events = chunks.flatMap((chunk) => mapper.push(chunk));
    const whole = accumulateChat(chunks);
    events.push(...mapper.end(whole.usage));
    const folded = accumulateResponseEvents(events);
    const produced = turnOutput(whole, planTools(undefined), 'resp_rec', 0);
    expect(folded).toEqual(finishResponse(skeleton, produced.items, produced.finishReason, whole.usage));
  });
});
