import type { FileSearchResult } from './types.js';

/**
 * What the model reads back from a file_search call: each passage with its file and score, as
 * plain text (models follow numbered, labelled passages more reliably than raw JSON).
 */
export function fileSearchResultsText(query: string, results: readonly FileSearchResult[] | null | undefined): string {
  if (results === null || results === undefined) return `File search for "${query}" ran; its results were not sent back with the conversation.`;
  if (results.length === 0) return `File search for "${query}" found nothing in the user's files.`;
  const passages = results.map((result, index) => `[${index + 1}] ${result.filename} (file_id ${result.file_id}, score ${result.score.toFixed(3)})\n${result.text}`);
  return `File search results for "${query}":\n\n${passages.join('\n\n')}`;
}
