import { describe, expect, it } from 'vitest';
import { checkBatchInput, modelProblems, problemText } from '../../../src/batches/input-check.js';
import type { JsonlLine } from '../../../src/batches/jsonl.js';

async function* linesOf(text: string): AsyncGenerator<JsonlLine> {
  let line = 0;
  for (const part of text.split('\n')) yield { line: ++line, text: part };
}

const row = (customId: string, body: Record<string, unknown>, url = '/v1/chat/completions') => JSON.stringify({ custom_id: customId, method: 'POST', url, body });
const chat = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };

describe('checkBatchInput: every problem in one pass', () => {
  it('goes on after a bad line and reports each with its line', async () => {
    const text = [row('a', chat), 'not json', row('a', chat), row('b', { ...chat, stream: true }), '', row('c', { model: 'm' }), row('d', chat, '/v1/embeddings')].join('\n');
    const checked = await checkBatchInput(linesOf(text), '/v1/chat/completions');
    expect(checked.rows).toBe(3);
    expect(checked.problems.map((problem) => [problem.line, problem.code ?? problem.field])).toEqual([
      [2, 'INFERENCE_3306'],
      [3, 'INFERENCE_3303'],
      [4, 'body.stream'],
      [6, 'body.messages'],
      [7, 'INFERENCE_3303'],
    ]);
    expect(checked.models).toEqual(new Map([['m', [1, 4, 6]]]));
  });

  it('a file with no request is one problem of the whole file', async () => {
    const checked = await checkBatchInput(linesOf('\n\n'), '/v1/embeddings');
    expect(checked.problems).toEqual([expect.objectContaining({ line: null, code: 'INFERENCE_3303' })]);
    expect(problemText('f.jsonl', checked.problems[0]!)).toMatch(/^f\.jsonl: the file has no requests/);
  });

  it('chat rows may leave the model to a blueprint; embeddings rows may not', async () => {
    const chatRows = await checkBatchInput(linesOf(row('a', { blueprint_id: '00000000-0000-4000-8000-000000000000', messages: [{ role: 'user', content: 'x' }] })), '/v1/chat/completions');
    expect(chatRows.problems).toEqual([]);
    const embeddings = await checkBatchInput(linesOf(row('a', { input: 'x' }, '/v1/embeddings')), '/v1/embeddings');
    expect(embeddings.problems.map((problem) => `${problem.field} ${problem.message}`)).toEqual(['body.model is required']);
  });
});

describe('modelProblems', () => {
  const listed = [
    { id: 'local-echo', type: 'chat' },
    { id: 'local-embed', type: 'embeddings' },
  ];
  it('unknown ids with the closest one, wrong types with one that fits, one problem per line', () => {
    const problems = modelProblems(
      new Map([
        ['local-echo', [1]],
        ['local-ecoh', [2, 5]],
        ['local-embed', [3]],
        ['local-echo:batch', [4]],
      ]),
      listed,
      '/v1/chat/completions',
    );
    expect(problems.map((problem) => [problem.line, problem.message])).toEqual([
      [2, 'unknown model "local-ecoh" (igw models lists the models of this key). Did you mean "local-echo"?'],
      [5, 'unknown model "local-ecoh" (igw models lists the models of this key). Did you mean "local-echo"?'],
      [3, '"local-embed" is an embeddings model; /v1/chat/completions runs chat models such as "local-echo"'],
    ]);
  });
});

describe('unknown body fields (DESIGN §5: forward compatibility)', () => {
  it('are warnings with the field they resemble, never blocking problems', async () => {
    const checked = await checkBatchInput(linesOf(row('a', { ...chat, temprature: 0.2, future_field: true })), '/v1/chat/completions');
    expect(checked.problems.every((problem) => problem.warning === true)).toBe(true);
    expect(checked.problems.map((problem) => problemText('f.jsonl', problem))).toEqual([
      'f.jsonl:1: body.temprature is not a field igw knows: dropped or refused, depending on the endpoint and server.strict_params. Did you mean "temperature"?',
      'f.jsonl:1: body.future_field is not a field igw knows: dropped or refused, depending on the endpoint and server.strict_params.',
    ]);
  });
});
