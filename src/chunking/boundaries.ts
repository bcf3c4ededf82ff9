/**
 * How good a place a character offset is to end a chunk, judged from the text just before it.
 * Higher is better: a chunk that ends at a paragraph break reads as a unit; one that ends
 * mid-word does not.
 */
export const CutQuality = {
  /** Inside a word: only when nothing else fits. */
  None: 0,
  /** After whitespace. */
  Word: 1,
  /** After sentence-ending punctuation and whitespace (or a CJK full stop). */
  Sentence: 2,
  /** After a line break. */
  Line: 3,
  /** After a blank line. */
  Paragraph: 4,
} as const;
export type CutQuality = (typeof CutQuality)[keyof typeof CutQuality];

const SENTENCE_END = new Set(['.', '!', '?', '\u3002', '\uFF01', '\uFF1F', '\u2026']);
/** Full stops of scripts written without spaces: a sentence ends there even with no space after. */
const CJK_SENTENCE_END = new Set(['\u3002', '\uFF01', '\uFF1F']);
/** Closing quotes and brackets that may follow the sentence's full stop (`"Done." Then`). */
const CLOSERS = new Set(['"', "'", ')', ']', '\u201D', '\u2019', '\u00BB']);

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0d || code === 0x0c || code === 0x0b || code === 0xa0;
}

/**
 * The quality of cutting `text` at `offset` (0 < offset < text.length). Tokens carry their
 * leading space (" word") and trailing line breaks (".\n\n"), so a good cut is anywhere in or
 * next to a whitespace run: the run around the offset decides — two line breaks in it make a
 * paragraph break, one a line break, and sentence punctuation just before it a sentence end.
 */
export function cutQuality(text: string, offset: number): CutQuality {
  let newlines = 0;
  let sawSpace = false;
  let before = offset - 1;
  while (before >= 0 && offset - before <= RUN_LOOKAROUND) {
    const code = text.charCodeAt(before);
    if (code === 0x0a) newlines += 1;
    else if (isSpace(code)) sawSpace = true;
    else break;
    before -= 1;
  }
  for (let after = offset; after < text.length && after - offset < RUN_LOOKAROUND; after += 1) {
    const code = text.charCodeAt(after);
    if (code === 0x0a) newlines += 1;
    else if (isSpace(code)) sawSpace = true;
    else break;
  }
  if (newlines >= 2) return CutQuality.Paragraph;
  if (newlines === 1) return CutQuality.Line;
  if (!sawSpace) return CJK_SENTENCE_END.has(text[offset - 1]!) ? CutQuality.Sentence : CutQuality.None;
  while (before >= 0 && CLOSERS.has(text[before]!)) before -= 1;
  if (before >= 0 && SENTENCE_END.has(text[before]!)) return CutQuality.Sentence;
  return CutQuality.Word;
}

/** How far a whitespace run is followed each way: a longer one says nothing more. */
const RUN_LOOKAROUND = 64;
