import { describe, expect, it } from 'vitest';
import { countChatPromptTokens, countTokens, decodeTokens, encodeTokens, tokenPieces } from '../../../src/tokens/tokenizer.js';
import type { ChatMessage } from '../../../src/translate/chat/types.js';

describe('tokenizer (o200k_base)', () => {
  it.each([
    { text: '', tokens: 0 },
    { text: 'Hello world', tokens: 2 },
    { text: 'Hello world 😀 héllo', tokens: 5 },
  ])('counts $text as $tokens tokens', ({ text, tokens }) => {
    expect(countTokens(text)).toBe(tokens);
  });

  it.each(['plain ascii text', 'naïve café — 日本語のテキスト', 'emoji 👩‍👩‍👧 and <|endoftext|> as text'])('round-trips %s', (text) => {
    expect(decodeTokens(encodeTokens(text))).toBe(text);
  });

  it('treats special-token spellings as plain text instead of throwing', () => {
    expect(countTokens('<|endoftext|>')).toBeGreaterThan(1);
  });

  it.each(['Hello world, how are you?', '👩‍👩‍👧 家族 🎉', 'mixé 😀😀😀 text', '🦜🦩🪿 𓀀𓀁'])('splits %s into pieces that rebuild it exactly', (text) => {
    const pieces = tokenPieces(text);
    expect(pieces.map((piece) => piece.text).join('')).toBe(text);
    expect(pieces.some((piece) => piece.text.includes('\uFFFD'))).toBe(false);
    expect(pieces.reduce((sum, piece) => sum + piece.tokens, 0)).toBe(countTokens(text));
  });

  // A long run takes the piecewise path; these texts hold one next to ordinary text, so they also
  // check that every ordinary piece still encodes exactly as one whole-text encode would.
  it.each([
    { name: 'a long letter run', run: 'a'.repeat(200) },
    { name: 'a long punctuation run', run: '='.repeat(150) },
    { name: 'a long whitespace run', run: ' '.repeat(120) },
    { name: 'a long emoji run', run: '😀'.repeat(80) },
  ])('$name round-trips and leaves the ordinary text around it tokenized as usual', ({ run }) => {
    const before = 'Hello world, naïve café 😀 — ';
    const after = ' and the end.';
    const text = `${before}${run}${after}`;
    const tokens = encodeTokens(text);
    expect(decodeTokens(tokens)).toBe(text);
    expect(tokens.slice(0, encodeTokens(before).length - 1)).toEqual(encodeTokens(before).slice(0, -1));
  });

  it('counts a 100,000-character unbroken run without stalling (whole-piece BPE would take minutes)', () => {
    const count = countTokens('x'.repeat(100_000));
    // Sliced encoding over-counts a little at most; it never under-counts by much.
    expect(count).toBeGreaterThan(100_000 / 16);
    expect(count).toBeLessThan(100_000);
  }, 20_000);

  it('keeps a character split across tokens in one piece', () => {
    // Each of these characters is several byte-level tokens in o200k_base.
    const pieces = tokenPieces('🦜𓀀');
    expect(pieces.map((piece) => piece.text)).toEqual(['🦜', '𓀀']);
    expect(pieces.every((piece) => piece.tokens > 1)).toBe(true);
  });
});

describe('countChatPromptTokens', () => {
  const text = (content: string): ChatMessage => ({ role: 'user', content });

  it.each<{ name: string; messages: ChatMessage[]; expected: number }>([
    { name: 'no messages: reply priming only', messages: [], expected: 3 },
    // 3 framing + 1 ("user") + 2 ("Hello world"), plus 3 priming
    { name: 'one user message', messages: [text('Hello world')], expected: 9 },
    {
      name: 'text parts are counted, image parts at the high-detail rate',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello world' }, { type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }],
      expected: 9 + 765,
    },
  ])('$name', ({ messages, expected }) => {
    expect(countChatPromptTokens(messages)).toBe(expected);
  });

  it('counts assistant tool calls as their JSON', () => {
    const call = { id: 'call_1', type: 'function' as const, function: { name: 'get_weather', arguments: '{"city":"Paris"}' } };
    const withCall = countChatPromptTokens([{ role: 'assistant', content: null, tool_calls: [call] }]);
    const without = countChatPromptTokens([{ role: 'assistant', content: null }]);
    expect(withCall - without).toBe(countTokens(JSON.stringify(call.function)));
  });

  it('grows with every message', () => {
    expect(countChatPromptTokens([text('a'), text('a')])).toBeGreaterThan(countChatPromptTokens([text('a')]));
  });
});
