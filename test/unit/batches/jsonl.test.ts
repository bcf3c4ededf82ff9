import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { batchRows } from '../../../src/batches/input-rows.js';
import { LineTooLongError, readJsonlLines } from '../../../src/batches/jsonl.js';
import { completionWindowSeconds } from '../../../src/batches/completion-window.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { collect, rejection } from '../../helpers/async.js';

function chunks(text: string, size: number): Readable {
  const bytes = Buffer.from(text);
  const parts: Buffer[] = [];
  for (let offset = 0; offset < bytes.length; offset += size) parts.push(bytes.subarray(offset, offset + size));
  return Readable.from(parts);
}

describe('readJsonlLines', () => {
  it.each([
    { name: 'plain', text: 'a\nb\nc', expected: ['a', 'b', 'c'] },
    { name: 'trailing newline', text: 'a\nb\n', expected: ['a', 'b'] },
    { name: 'CRLF', text: 'a\r\nb\r\n', expected: ['a', 'b'] },
    { name: 'blank lines kept', text: 'a\n\nb', expected: ['a', '', 'b'] },
    { name: 'multi-byte characters split across chunks', text: 'é€😀\nx', expected: ['é€😀', 'x'] },
    { name: 'empty', text: '', expected: [] },
  ])('$name', async ({ text, expected }) => {
    for (const size of [1, 2, 3, 7, 1000]) {
      const lines = await collect(readJsonlLines(chunks(text, size), 100));
      expect(lines.map((line) => line.text)).toEqual(expected);
      expect(lines.map((line) => line.line)).toEqual(expected.map((_, index) => index + 1));
    }
  });

  it('refuses an over-long line with its number, without buffering it', async () => {
    const error = await rejection(collect(readJsonlLines(chunks(`ok\n${'x'.repeat(50)}\nok`, 7), 20)));
    expect(error).toBeInstanceOf(LineTooLongError);
    expect((error as LineTooLongError).line).toBe(2);
  });
});

const row = (customId: string, extra: Record<string, unknown> = {}) => JSON.stringify({ custom_id: customId, method: 'POST', url: '/v1/embeddings', body: { model: 'm', input: 'x' }, ...extra });
const rules = { endpoint: '/v1/embeddings', maxRequests: 3 };

async function rowsOf(text: string, limits = rules) {
  return collect(batchRows(readJsonlLines(chunks(text, 5), 1000), limits));
}

describe('batchRows', () => {
  it('indexes requests, skipping blank lines, with their line numbers', async () => {
    const rows = await rowsOf(`${row('a')}\n\n${row('b')}\n`);
    expect(rows.map(({ index, line, custom_id: id }) => ({ index, line, id }))).toEqual([{ index: 0, line: 1, id: 'a' }, { index: 1, line: 3, id: 'b' }]);
  });

  it.each([
    { name: 'not JSON', text: `${row('a')}\n{oops`, code: 'INFERENCE_3306', line: 2 },
    { name: 'not an object', text: '"text"', code: 'INFERENCE_3303', line: 1 },
    { name: 'unknown key', text: row('a', { extra: 1 }), code: 'INFERENCE_3303', line: 1 },
    { name: 'empty custom_id', text: row(''), code: 'INFERENCE_3303', line: 1 },
    { name: 'numeric custom_id', text: JSON.stringify({ custom_id: 1, method: 'POST', url: '/v1/embeddings', body: {} }), code: 'INFERENCE_3303', line: 1 },
    { name: 'wrong method', text: row('a', { method: 'PUT' }), code: 'INFERENCE_3303', line: 1 },
    { name: 'wrong url', text: row('a', { url: '/v1/chat/completions' }), code: 'INFERENCE_3303', line: 1 },
    { name: 'body an array', text: row('a', { body: [] }), code: 'INFERENCE_3303', line: 1 },
    { name: 'duplicate custom_id', text: `${row('a')}\n${row('b')}\n${row('a')}`, code: 'INFERENCE_3303', line: 3 },
    { name: 'too many requests', text: [row('a'), row('b'), row('c'), row('d')].join('\n'), code: 'INFERENCE_3305', line: 4 },
    { name: 'no requests', text: '\n \n', code: 'INFERENCE_3303', line: null },
    { name: 'line too long', text: `${row('a')}\n${'x'.repeat(2000)}`, code: 'INFERENCE_3303', line: 2 },
  ])('$name → $code at line $line', async ({ text, code, line }) => {
    const error = await rejection(rowsOf(text));
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe(code);
    expect((error as GatewayError).details?.['line']).toBe(line);
  });
});

describe('completionWindowSeconds', () => {
  it.each([
    ['24h', 86_400],
    ['90m', 5400],
    ['2d', 172_800],
    ['30s', 30],
    ['7d', 604_800],
  ])('%s → %d', (window, seconds) => {
    expect(completionWindowSeconds(window)).toBe(seconds);
  });
  it.each(['', '24', 'h', '0h', '8d', '1.5h', '24 h', 'tomorrow'])('refuses %j', (window) => {
    expect(() => completionWindowSeconds(window)).toThrow(GatewayError);
  });
});
