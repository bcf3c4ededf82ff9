import { GatewayError } from '../errors/gateway-error.js';
import type { RequestCall } from '../http/request-call.js';
import type { FileSearchResult, FileSearchToolDefinition } from '../translate/responses/types.js';

/**
 * file_search as igw runs it for the model (spec "POST /v1/responses", tools): a search over the
 * caller's own vector stores with the tool's vector_store_ids, max_num_results, filters and
 * ranking_options.score_threshold.
 */
export interface FileSearch {
  /** Whether the file_search_call items carry their results (`include: ["file_search_call.results"]`). */
  includeResults: boolean;
  run(query: string): Promise<FileSearchResult[]>;
}

export async function createFileSearch(_call: RequestCall, _tool: FileSearchToolDefinition, _toolIndex: number, _include: readonly string[]): Promise<FileSearch> {
  // The vector-store search service is not part of this build yet (issue 5 lands it with the
  // vector stores): refuse the tool clearly rather than answer without searching.
  throw new GatewayError('VALIDATION_4005', 'The file_search tool needs vector stores, which this igw build does not have yet; remove the tool or upgrade igw.', {
    field: 'tools',
    tool_type: 'file_search',
  });
}
