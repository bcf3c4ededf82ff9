/**
 * Railguard and override matching. A rule is either a regular expression (`pattern`, flags
 * default `i`) or a list of `words` matched case-insensitively as whole words or phrases (not
 * inside a longer word). Empty matches never count.
 */

export interface MatcherRule {
  pattern?: string | undefined;
  flags?: string | undefined;
  words?: string[] | undefined;
  max_match_chars?: number | undefined;
}

export interface CompiledMatcher<Rule extends MatcherRule = MatcherRule> {
  rule: Rule;
  /** Global scanner (matchAll clones it, so it holds no state between calls). */
  scanner: RegExp;
  /** The longest text a match can span, when known: words → longest word; patterns → max_match_chars. */
  maxLength: number | undefined;
}

export interface Scan {
  /** A match that the text so far settles. */
  match?: { start: number; end: number };
  /** Start of the earliest match that touches the end of the text and may still grow or vanish (streams). */
  openStart?: number;
}

const WORD_CHAR = String.raw`[\p{L}\p{N}_]`;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Compiled scanners by rule, so a blueprint sent on every request does not recompile its rules each time. */
const compiled = new Map<string, { scanner: RegExp; maxLength: number | undefined }>();
const MAX_COMPILED = 2000;

export function compileMatcher<Rule extends MatcherRule>(rule: Rule): CompiledMatcher<Rule> {
  const key = JSON.stringify([rule.pattern, rule.flags, rule.words, rule.max_match_chars]);
  let entry = compiled.get(key);
  if (entry === undefined) {
    entry = compileScanner(rule);
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
    compiled.set(key, entry);
  }
  return { rule, ...entry };
}

function compileScanner(rule: MatcherRule): { scanner: RegExp; maxLength: number | undefined } {
  if (rule.words !== undefined) {
    const words = [...rule.words].sort((a, b) => b.length - a.length);
    const alternatives = words.map((word) => escapeRegExp(word).replace(/\s+/g, String.raw`\s+`)).join('|');
    return {
      scanner: new RegExp(`(?<!${WORD_CHAR})(?:${alternatives})(?!${WORD_CHAR})`, 'giu'),
      // A phrase may match with more whitespace than it was written with: no bound then.
      maxLength: words.some((word) => /\s/.test(word)) ? undefined : words[0]!.length,
    };
  }
  const flags = [...new Set(`${rule.flags ?? 'i'}g`)].join('');
  return { scanner: new RegExp(rule.pattern ?? '', flags), maxLength: rule.max_match_chars };
}

/**
 * Scans `text` from `from` (earlier text was scanned before; lookbehinds still see it). With
 * `final` false (a stream still running) a match ending exactly at the end of the text is not
 * settled: more text could extend it ("secret" → "secrets") or, with a lookahead, undo it; it is
 * reported as `openStart` so the caller holds it back.
 */
export function scan(matcher: CompiledMatcher, text: string, final: boolean, from = 0): Scan {
  let openStart: number | undefined;
  const scanner = new RegExp(matcher.scanner);
  scanner.lastIndex = from;
  for (let found = scanner.exec(text); found !== null; found = scanner.exec(text)) {
    if (found[0].length === 0) {
      scanner.lastIndex += 1;
      continue;
    }
    const start = found.index;
    const end = start + found[0].length;
    if (!final && end === text.length) {
      openStart = Math.min(openStart ?? start, start);
      continue;
    }
    return { match: { start, end } };
  }
  return openStart === undefined ? {} : { openStart };
}

/** The first matcher (in document order) with a settled match in `text`. */
export function firstMatching<Rule extends MatcherRule>(matchers: ReadonlyArray<CompiledMatcher<Rule>>, text: string): CompiledMatcher<Rule> | undefined {
  return matchers.find((matcher) => scan(matcher, text, true).match !== undefined);
}

/**
 * True when a repeated group itself contains a repetition, like `(a+)+` or `(\w*\s?)*`: the
 * shape behind catastrophic backtracking, which would stall the gateway's event loop on a crafted
 * message. Refused when a blueprint is validated. A heuristic, not a proof: it reads groups,
 * escapes and character classes, and treats `*`, `+` and `{n,}` / `{n,m}` as repetitions.
 */
export function hasNestedRepetition(pattern: string): boolean {
  const groups: boolean[] = [false];
  let closedGroupRepeats: boolean | undefined;
  const repetitionAt = (index: number): boolean => {
    const character = pattern[index];
    if (character === '*' || character === '+') return true;
    return character === '{' && /^\{\d+,\d*\}/.test(pattern.slice(index)) && !/^\{(\d+),\1\}/.test(pattern.slice(index));
  };
  for (let index = 0; index < pattern.length; index += 1) {
    const character = pattern[index]!;
    const justClosed = closedGroupRepeats;
    closedGroupRepeats = undefined;
    if (character === '\\') {
      index += 1;
      continue;
    }
    if (character === '[') {
      index += 1;
      if (pattern[index] === ']') index += 1;
      while (index < pattern.length && pattern[index] !== ']') index += pattern[index] === '\\' ? 2 : 1;
      continue;
    }
    if (character === '(') {
      groups.push(false);
      continue;
    }
    if (character === ')') {
      const inner = groups.pop() ?? false;
      if (groups.length === 0) groups.push(false);
      if (inner) groups[groups.length - 1] = true;
      closedGroupRepeats = inner;
      continue;
    }
    if (repetitionAt(index)) {
      if (justClosed === true) return true;
      groups[groups.length - 1] = true;
    }
  }
  return false;
}
