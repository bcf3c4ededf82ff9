import type { PlanConfig } from '../config/schema.js';
import type { DocumentInput } from '../documents/types.js';

/** A knowledge base (vector store) as the tools show it. */
export interface KnowledgeBase {
  id: string;
  name: string;
  /** Files attached, whatever their status. */
  files: number;
}

/** One passage a knowledge-base search found. */
export interface KnowledgeBasePassage {
  file_id: string;
  filename: string;
  score: number;
  text: string;
}

export interface KnowledgeBaseQuery {
  query: string;
  maxNumResults: number;
  /** The wire `filters` object of POST /v1/vector_stores/{id}/search (validated by the search). */
  filters?: unknown;
}

/**
 * What igw's built-in tools use of the gateway, and nothing more (ARCHITECTURE principle 7:
 * services get narrow ports, never AppContext). Built from the app context by app/tool-services.ts.
 */
export interface ToolServices {
  /** The account's knowledge bases that have not expired, oldest first. */
  knowledgeBases(accountId: string): Promise<KnowledgeBase[]>;
  /** Searches one of the account's knowledge bases, billed to it like POST …/search; best first. */
  searchKnowledgeBase(accountId: string, storeId: string, query: KnowledgeBaseQuery, signal: AbortSignal): Promise<KnowledgeBasePassage[]>;
  /** A file of the account (Files API) or a fetched http(s) URL, as a document to convert; `field` names the argument in errors. */
  loadDocument(accountId: string, reference: { file_id: string } | { url: string }, signal: AbortSignal, field: string): Promise<DocumentInput>;
  /** The models the plan may use, with their type. */
  visibleModels(plan: PlanConfig): Array<{ id: string; type: string }>;
}
