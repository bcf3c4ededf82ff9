/**
 * The word segmentation shared by the local embedder and reranker: lowercased runs of Unicode
 * letters, marks and digits, so "Café", "naïve" and "日本語" are words and punctuation is not.
 */
export function wordTokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{M}\p{N}]+/gu) ?? [];
}
