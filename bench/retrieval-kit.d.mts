// Types of bench/retrieval-kit.mjs for the TypeScript test that uses it.
export interface LabelledQuery {
  id: string;
  class: 'keyword' | 'paraphrase';
  query: string;
  relevant: Array<{ file: string; passage?: string }>;
}
export interface Metrics {
  ndcg: number;
  recall: number;
  queries: number;
}
export type Summary = Record<'all' | 'keyword' | 'paraphrase', Metrics>;
export interface ConceptTable {
  byStem: Map<string, number>;
  concepts: number;
  dimensions: number;
}
export const CORPUS: Array<{ file: string; name: string }>;
export const K: number;
export const MODES: Record<'vector' | 'bm25' | 'hybrid', Record<string, unknown>>;
export function loadQueries(): Promise<LabelledQuery[]>;
export function relevantChunks(query: LabelledQuery, chunks: Map<string, string[]>): Set<string>;
export function scoreRanking(ranked: string[], relevant: Set<string>, k?: number): { ndcg: number; recall: number };
export function summarise(rows: Array<{ class: string; ndcg: number; recall: number }>): Summary;
export function loadConcepts(): Promise<ConceptTable>;
export function conceptEmbed(table: ConceptTable, text: string): number[];
export function conceptEmbeddingsAnswer(table: ConceptTable, input: string | string[]): unknown;
export function conceptModel(providerId: string): Record<string, unknown>;
export function buildStore(baseUrl: string, key: string, embeddingModel: string, waitIdle: () => Promise<void>): Promise<{ storeId: string; chunks: Map<string, string[]>; names: Map<string, string> }>;
export function evaluateStore(
  baseUrl: string,
  key: string,
  storeId: string,
  chunks: Map<string, string[]>,
  queries: LabelledQuery[],
): Promise<{ summaries: Record<'vector' | 'bm25' | 'hybrid', Summary>; perQuery: Record<'vector' | 'bm25' | 'hybrid', Array<{ id: string; class: string; ndcg: number; recall: number }>> }>;
