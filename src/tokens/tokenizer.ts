import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ChatMessage, ContentPart, TextPart } from '../translate/chat/types.js';
import { BytePairEncoder } from './byte-pair-encoder.js';
import { RankTableBuilder, type RankFile } from './rank-table.js';

/**
 * Token counting with the o200k_base encoding (the GPT-4o family). igw uses one encoding for
 * every model: counts are an estimate for non-OpenAI providers, which report their own usage.
 */

// The ranks are js-tiktoken's o200k_base rank file, held as one compact table (rank-table.ts:
// ~5 MB instead of js-tiktoken's ~150 MB of Maps, issue 18 item 3). The table is built on first
// use rather than at import (most CLI commands never count tokens), synchronously so that the
// counting API stays synchronous; `igw serve` builds it ahead in slices (warmTokenizer). The
// encoder is immutable data, so caching it per process is safe.
let encoder: BytePairEncoder | undefined;
let builder: RankTableBuilder | undefined;
let rankFile: RankFile | undefined;

/** The rank file is `module.exports = {…json…};`: read as JSON so no module cache keeps the 2 MB source alive. */
function parseRankFile(source: string): RankFile {
  const json = source.slice(source.indexOf('{'), source.lastIndexOf('}') + 1);
  return JSON.parse(json) as RankFile;
}

function rankFilePath(): string {
  return createRequire(import.meta.url).resolve('js-tiktoken/ranks/o200k_base');
}

function loadedRankFile(): RankFile {
  rankFile ??= parseRankFile(readFileSync(rankFilePath(), 'utf8'));
  return rankFile;
}

function getEncoder(): BytePairEncoder {
  if (encoder === undefined) {
    builder ??= new RankTableBuilder(loadedRankFile());
    encoder = new BytePairEncoder(builder.table(), new RegExp(loadedRankFile().pat_str, 'gu'));
    builder = undefined;
    rankFile = { ...loadedRankFile(), bpe_ranks: '' };
  }
  return encoder;
}

/** Slices of the warm-up: short enough that resumed batch rows and early requests are not held up. */
const WARM_SLICE_MS = 4;

/**
 * Builds the encoder without holding the event loop: the file is read asynchronously and the
 * table built WARM_SLICE_MS at a time between turns (igw serve calls it right after listening,
 * see cli/commands/serve.ts). A request that counts tokens meanwhile finishes the build itself.
 */
export async function warmTokenizer(): Promise<void> {
  if (encoder !== undefined) return;
  if (rankFile === undefined) {
    const source = await readFile(rankFilePath(), 'utf8');
    rankFile ??= parseRankFile(source);
  }
  if (encoder !== undefined) return;
  builder ??= new RankTableBuilder(rankFile);
  const building = builder;
  while (!building.step(WARM_SLICE_MS)) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (encoder !== undefined) return;
  }
  getEncoder();
}

/** OpenAI's documented chat overhead: each message is framed by about 3 tokens. */
const TOKENS_PER_MESSAGE = 3;
/** …and every reply is primed with `<|start|>assistant<|message|>`. */
const TOKENS_REPLY_PRIMING = 3;
/** A name field costs one extra token beyond its text. */
const TOKENS_PER_NAME = 1;
/**
 * Image parts are not fetched to measure them; we charge the high-detail rate for one
 * 512×512 tile set (85 base + 4 tiles × 170), the common upper estimate.
 */
const TOKENS_PER_IMAGE = 765;

/**
 * Byte-pair merging is quadratic in the length of one piece of the split pattern (in js-tiktoken an
 * 8,000-letter run takes ~25 s), and prompts are counted on the request path: one crafted message
 * could stall the event loop. Pieces longer than LONG_PIECE characters (hashes, minified code,
 * "aaaa…") are therefore encoded in LONG_PIECE slices. Their count may then be a few percent
 * above a whole encode; every other piece encodes exactly as tiktoken does (it encodes pieces
 * independently), so ordinary text gives identical tokens.
 */
export const LONG_PIECE = 64;
/** Text without such a run cannot hold a long piece: the common case takes one plain encode. */
const LONG_RUN = /\S{63,}|\s{63,}/;
/** The shortest text LONG_RUN can match: a shorter one (a search query) skips the scan (issue 16). */
const LONG_RUN_LENGTH = 63;

let piecePattern: RegExp | undefined;

/** The encoding's own split pattern (global, unicode), from the same rank file. */
export function splitPattern(): RegExp {
  if (piecePattern === undefined) {
    piecePattern = new RegExp(loadedRankFile().pat_str, 'gu');
  }
  return piecePattern;
}

/** Tokens of one piece of the split pattern; a long piece in LONG_PIECE slices (never inside a surrogate pair). */
export function encodePiece(piece: string): number[] {
  if (piece.length <= LONG_PIECE) return encodePlain(piece);
  const tokens: number[] = [];
  for (let from = 0; from < piece.length; ) {
    let to = Math.min(piece.length, from + LONG_PIECE);
    const next = piece.charCodeAt(to);
    if (to < piece.length && next >= 0xdc00 && next <= 0xdfff) to -= 1;
    for (const token of encodePlain(piece.slice(from, to))) tokens.push(token);
    from = to;
  }
  return tokens;
}

function encodePlain(text: string): number[] {
  // Special-token spellings in user text are plain text (js-tiktoken's encode(text, [], [])).
  return getEncoder().encode(text);
}

/** Encodes text; special-token text (e.g. `<|endoftext|>`) is treated as plain text. */
export function encodeTokens(text: string): number[] {
  if (text.length < LONG_RUN_LENGTH || !LONG_RUN.test(text)) return encodePlain(text);
  const tokens: number[] = [];
  const pattern = splitPattern();
  pattern.lastIndex = 0;
  let covered = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    if (match[0].length === 0) {
      pattern.lastIndex += 1;
      continue;
    }
    // The pattern covers every character; should it ever skip some, count them too.
    if (match.index > covered) for (const token of encodePiece(text.slice(covered, match.index))) tokens.push(token);
    for (const token of encodePiece(match[0])) tokens.push(token);
    covered = match.index + match[0].length;
  }
  if (covered < text.length) for (const token of encodePiece(text.slice(covered))) tokens.push(token);
  return tokens;
}

export function decodeTokens(tokens: number[]): string {
  return getEncoder().decode(tokens);
}

export function countTokens(text: string): number {
  return text.length === 0 ? 0 : encodeTokens(text).length;
}

/** Estimated prompt tokens of a chat request's messages, OpenAI-style. */
export function countChatPromptTokens(messages: ChatMessage[]): number {
  let total = TOKENS_REPLY_PRIMING;
  for (const message of messages) {
    total += TOKENS_PER_MESSAGE + countTokens(message.role);
    if ('name' in message && message.name !== undefined) total += TOKENS_PER_NAME + countTokens(message.name);
    total += countContent(message.content);
    if (message.role === 'assistant' && message.tool_calls) {
      for (const call of message.tool_calls) total += countTokens(JSON.stringify(call.function));
    }
    if (message.role === 'tool') total += countTokens(message.tool_call_id);
  }
  return total;
}

function countContent(content: string | Array<ContentPart | TextPart> | null | undefined): number {
  if (content === null || content === undefined) return 0;
  if (typeof content === 'string') return countTokens(content);
  let total = 0;
  for (const part of content) {
    total += part.type === 'text' ? countTokens(part.text) : TOKENS_PER_IMAGE;
  }
  return total;
}

/** A run of text that decodes cleanly, with the number of tokens it spans (usually 1). */
export interface TokenPiece {
  text: string;
  tokens: number;
}

/**
 * Splits text into per-token pieces whose concatenation is exactly the text. A token that ends
 * inside a multi-byte character (emoji, CJK) does not decode on its own, so it is joined with
 * the following token(s) until the bytes form whole characters: streaming those pieces never
 * shows a replacement character.
 */
export function tokenPieces(text: string): TokenPiece[] {
  const pieces: TokenPiece[] = [];
  let position = 0;
  let group: number[] = [];
  for (const token of encodeTokens(text)) {
    group.push(token);
    const decoded = decodeTokens(group);
    if (text.startsWith(decoded, position)) {
      pieces.push({ text: decoded, tokens: group.length });
      position += decoded.length;
      group = [];
    }
  }
  if (group.length > 0) pieces.push({ text: text.slice(position), tokens: group.length });
  return pieces;
}
