import { describe, expect, it } from 'vitest';
import { guardCompletion, RailguardTransform } from '../../../src/inference/transforms/railguards.js';
import { OutputGuard } from '../../../src/blueprints/output-guard.js';
import type { ChatChunk, ChatResponse } from '../../../src/translate/chat/types.js';

const rule = (fields: Record<string, unknown>) => ({ message: 'That answer was withheld.', ...fields });

/** Feeds the deltas one by one; returns what reached the client and how the choice ended. */
function stream(guard: OutputGuard, deltas: string[]): { sent: string[]; blocked: string | undefined } {
  const streamGuard = guard.stream();
  const sent: string[] = [];
  for (const delta of deltas) {
    const step = streamGuard.push(0, delta);
    if (step.blocked !== undefined) return { sent, blocked: step.blocked.message };
    if (step.release !== '') sent.push(step.release);
  }
  const end = streamGuard.end(0);
  if (end.blocked !== undefined) return { sent, blocked: end.blocked.message };
  if (end.release !== '') sent.push(end.release);
  return { sent, blocked: undefined };
}

describe('output railguards on streams', () => {
  it.each<[string, Record<string, unknown>, string[], boolean]>([
    ['word split across deltas', { words: ['secret'] }, ['the se', 'cr', 'et is out'], true],
    ['word at the very end', { words: ['secret'] }, ['the ', 'secret'], true],
    ['longer word is not the word', { words: ['secret'] }, ['the ', 'secret', 's are fine'], false],
    ['bounded pattern', { pattern: 'code \\d{4}', max_match_chars: 9 }, ['your code ', '12', '34 ok'], true],
    ['unbounded pattern', { pattern: 'begin.*end' }, ['begin ', 'middle ', 'and the end'], true],
    ['clean text', { words: ['secret'] }, ['nothing ', 'to ', 'see ', 'here'], false],
    ['word inside a longer word, split across deltas', { words: ['secret'] }, ['a long prefix xsec', 'ret here'], false],
    ['word after a long clean stretch', { words: ['secret'] }, ['clean '.repeat(50), 'and then secr', 'et!'], true],
  ])('%s', (_name, fields, deltas, blocked) => {
    const guard = new OutputGuard([rule(fields)], {});
    const result = stream(guard, deltas);
    const text = deltas.join('');
    expect(result.blocked !== undefined).toBe(blocked);
    if (!blocked) expect(result.sent.join('')).toBe(text);
    else {
      // Never any part of the matching text: what was sent ends before the match starts.
      const match = guard.check(text) ? new RegExp((fields['pattern'] as string | undefined) ?? 'secret', 'i').exec(text)! : undefined;
      expect(result.sent.join('').length).toBeLessThanOrEqual(match!.index);
    }
  });

  it('long answers: settled text is dropped, matches near the end still caught, ^ still means the start', () => {
    const deltas = Array.from({ length: 3000 }, (_, index) => `w${index} `);
    const late = stream(new OutputGuard([rule({ words: ['secret'] })], {}), [...deltas, 'the sec', 'ret', ' end']);
    expect(late.blocked).toBeDefined();
    expect(late.sent.join('')).toBe(deltas.join('') + 'the ');
    const anchored = stream(new OutputGuard([rule({ pattern: '^secret', max_match_chars: 6 })], {}), [...deltas, 'secret', ' end']);
    expect(anchored.blocked).toBeUndefined();
    expect(anchored.sent.join('')).toBe(`${deltas.join('')}secret end`);
    const inside = stream(new OutputGuard([rule({ words: ['secret'] })], {}), [...deltas, 'xsec', 'ret']);
    expect(inside.blocked).toBeUndefined();
  });

  it('word rules release text early, holding back only the longest word', () => {
    const result = stream(new OutputGuard([rule({ words: ['secret'] })], {}), ['a'.repeat(20), 'b'.repeat(20), 'c']);
    expect(result.sent[0]).toBe('a'.repeat(14));
  });

  it('unbounded patterns hold the whole text until the end', () => {
    const result = stream(new OutputGuard([rule({ pattern: 'zzz' })], {}), ['one ', 'two ', 'three']);
    expect(result.sent).toEqual(['one two three']);
  });

  it('never splits a surrogate pair', () => {
    const result = stream(new OutputGuard([rule({ words: ['x'] })], {}), ['ab😀', 'cd']);
    for (const piece of result.sent) expect(piece).toBe(piece.normalize());
    expect(result.sent.join('')).toBe('ab😀cd');
    expect(result.sent.every((piece) => !/[\ud800-\udbff]$/.test(piece))).toBe(true);
  });
});

describe('RailguardTransform (output railguards on a stream)', () => {
  const chunk = (index: number, content: string | undefined, finish: ChatChunk['choices'][0]['finish_reason'] = null): ChatChunk => ({
    id: 'c',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index, delta: content === undefined ? {} : { content }, finish_reason: finish, logprobs: { content: [] } }],
  });

  it('ends a matching choice with the message and finish_reason blocked, drops the rest', () => {
    const guard = new RailguardTransform(new OutputGuard([rule({ words: ['secret'] })], {}));
    const sent: ChatChunk[] = [];
    for (const item of [chunk(0, 'the '), chunk(0, 'secret '), chunk(0, 'more'), chunk(0, undefined, 'stop')]) if (guard.apply(item)) sent.push(item);
    expect(sent.map((item) => item.choices[0]!.delta.content)).toEqual(['That answer was withheld.']);
    expect(sent.at(-1)!.choices[0]!.finish_reason).toBe('blocked');
    expect(guard.blocked).toBe(1);
  });

  it('passes clean text through, flushing the held tail on the finish chunk, logprobs dropped', () => {
    const guard = new RailguardTransform(new OutputGuard([rule({ words: ['secret'] })], {}));
    const sent: ChatChunk[] = [];
    for (const item of [chunk(0, 'hello there '), chunk(0, 'friend'), chunk(0, undefined, 'stop')]) if (guard.apply(item)) sent.push(item);
    expect(sent.map((item) => item.choices[0]!.delta.content ?? '').join('')).toBe('hello there friend');
    expect(sent.at(-1)!.choices[0]!.finish_reason).toBe('stop');
    expect(sent.every((item) => item.choices[0]!.logprobs === null)).toBe(true);
  });

  it('non-stream: replaces the matching choice only', () => {
    const response = {
      choices: [
        { index: 0, message: { role: 'assistant', content: 'a secret', tool_calls: null }, finish_reason: 'stop', logprobs: null },
        { index: 1, message: { role: 'assistant', content: 'fine', tool_calls: null }, finish_reason: 'stop', logprobs: null },
      ],
    } as unknown as ChatResponse;
    guardCompletion(response, new OutputGuard([rule({ words: ['secret'] })], {}));
    expect(response.choices.map((choice) => [choice.message.content, choice.finish_reason])).toEqual([
      ['That answer was withheld.', 'blocked'],
      ['fine', 'stop'],
    ]);
  });
});
