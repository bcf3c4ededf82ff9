import { stemmer } from 'stemmer';
import { wordTokens } from '../providers/local/word-tokens.js';

/**
 * Function words that carry no topic: dropped from chunks and queries, so "what did the court
 * ask" searches for "court" and "ask" and a chunk is not found for sharing "the" with a query.
 */
const STOP_WORDS = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both but by ' +
    'can could did do does doing down during each few for from further had has have having he her here hers herself him ' +
    'himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other ' +
    'our ours ourselves out over own same she should so some such than that the their theirs them themselves then there ' +
    'these they this those through to too under until up very was we were what when where which while who whom why will ' +
    'with would you your yours yourself yourselves'
  ).split(' '),
);

/** Longer runs are hashes, base64 or minified code: not words anyone searches for. Single letters ("s" of "person's") go too. */
const MAX_TERM_LENGTH = 40;

/**
 * The index terms of a text: its words (lowercased letter/digit runs, as the local models
 * segment), minus stop words, English words reduced to their Porter stem ("justices" and
 * "justice" → "justic"), so inflections of one word match each other.
 */
export function lexicalTerms(text: string): string[] {
  const terms: string[] = [];
  for (const word of wordTokens(text)) {
    if (word.length > MAX_TERM_LENGTH || STOP_WORDS.has(word) || /^[a-z]$/.test(word)) continue;
    terms.push(/^[a-z]+$/.test(word) ? stemmer(word) : word);
  }
  return terms;
}
