import type { ResponseObject, ResponsesOutputItem, ResponseStreamEvent } from '../responses/types.js';

/**
 * Folds responses-style stream events into the response they describe (the reducer the official
 * SDK's ResponseStream runs), checking what the SDK relies on: sequence numbers 0, 1, 2, …;
 * response.created first; every delta aimed at an open item of the right type; each
 * output_item.done equal to the folded item. Returns the folded response with the final event's
 * status, usage and extra fields. Throws on anything out of order, so tests see broken streams.
 */
export function accumulateResponseEvents(events: Iterable<ResponseStreamEvent>): ResponseObject {
  let response: ResponseObject | undefined;
  let expected = 0;
  let final: ResponseObject | undefined;
  const open = new Set<number>();
  for (const event of events) {
    if (event.sequence_number !== expected) throw new Error(`sequence_number ${event.sequence_number}, expected ${expected}`);
    expected += 1;
    if (final !== undefined) throw new Error(`${event.type} after the final event`);
    if (event.type === 'response.created') {
      if (response !== undefined) throw new Error('second response.created');
      response = { ...event.response, output: [] };
      continue;
    }
    if (response === undefined) throw new Error(`${event.type} before response.created`);
    switch (event.type) {
      case 'response.in_progress':
      case 'error':
        break;
      case 'response.output_item.added': {
        if (event.output_index !== response.output.length) throw new Error(`item ${event.output_index} added out of order`);
        response.output.push(structuredClone(event.item));
        open.add(event.output_index);
        break;
      }
      case 'response.content_part.added': {
        const item = openItem(response, open, event.output_index, event.part.type === 'reasoning_text' ? 'reasoning' : 'message');
        if (item.type === 'message' && event.part.type === 'output_text') item.content.push({ ...event.part });
        if (item.type === 'reasoning' && event.part.type === 'reasoning_text') item.content.push({ ...event.part });
        break;
      }
      case 'response.reasoning_text.delta': {
        const item = openItem(response, open, event.output_index, 'reasoning');
        const part = item.type === 'reasoning' ? item.content[event.content_index] : undefined;
        if (part === undefined) throw new Error(`reasoning delta for missing part ${event.content_index}`);
        part.text += event.delta;
        break;
      }
      case 'response.output_text.delta': {
        const item = openItem(response, open, event.output_index, 'message');
        const part = item.type === 'message' ? item.content[event.content_index] : undefined;
        if (part === undefined) throw new Error(`text delta for missing part ${event.content_index}`);
        part.text += event.delta;
        break;
      }
      case 'response.function_call_arguments.delta': {
        const item = openItem(response, open, event.output_index, 'function_call');
        if (item.type === 'function_call') item.arguments += event.delta;
        break;
      }
      case 'response.output_item.done': {
        const folded = openItem(response, open, event.output_index, event.item.type);
        const { status: _foldedStatus, ...foldedRest } = folded as unknown as Record<string, unknown>;
        const { status: _doneStatus, ...doneRest } = event.item as unknown as Record<string, unknown>;
        // Whole-item updates (file_search results) are taken from the done event; streamed text and arguments must match it.
        if (event.item.type === 'message' || event.item.type === 'function_call' || event.item.type === 'reasoning') {
          if (JSON.stringify(sorted(foldedRest)) !== JSON.stringify(sorted(doneRest))) throw new Error(`item ${event.output_index}: folded ${JSON.stringify(folded)} ≠ done ${JSON.stringify(event.item)}`);
        }
        response.output[event.output_index] = structuredClone(event.item);
        open.delete(event.output_index);
        break;
      }
      case 'response.completed':
      case 'response.failed':
        final = { ...event.response, output: response.output };
        break;
      default:
        break;
    }
  }
  if (final === undefined) throw new Error('stream did not end with response.completed or response.failed');
  if (open.size > 0 && final.status === 'completed') throw new Error(`items left open: ${[...open].join(', ')}`);
  return final;
}

function openItem(response: ResponseObject, open: Set<number>, index: number, type: ResponsesOutputItem['type']): ResponsesOutputItem {
  const item = response.output[index];
  if (item === undefined || !open.has(index)) throw new Error(`no open item at ${index}`);
  if (item.type !== type) throw new Error(`item ${index} is a ${item.type}, not a ${type}`);
  return item;
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)).map(([key, inner]) => [key, sorted(inner)]));
}
