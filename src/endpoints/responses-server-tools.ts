import type { ChatMessage, ToolCall } from '../translate/chat/types.js';
import { fileSearchResultsText } from '../translate/responses/file-search-text.js';
import { fileSearchQuery } from '../translate/responses/output-items.js';
import type { FileSearchResult } from '../translate/responses/types.js';
import type { FileSearch } from './responses-file-search.js';

/**
 * How the answer's wire records a server-side tool call: its output item started (stream:
 * `*.in_progress` events), then completed or failed, with what the tool found when the client
 * asked to see it. The JSON answer and the event stream each implement it.
 */
export interface ServerToolItems {
  fileSearchStarted(query: string): number;
  fileSearchEnded(handle: number, status: 'completed' | 'failed', results: FileSearchResult[] | null): Promise<void> | void;
}

/**
 * Tools igw runs itself between model turns (spec "POST /v1/responses", tools): the model calls
 * them like functions, igw runs them and hands the results back for the next turn. file_search
 * today; another server-side tool (an `mcp` tool, issue 20 item 3) is one more entry here with
 * its own output items.
 */
export interface ServerTools {
  fileSearch: FileSearch | undefined;
}

/** Whether any server-side tool is offered, so a turn's internal calls can be run at all. */
export function hasServerTools(tools: ServerTools): boolean {
  return tools.fileSearch !== undefined;
}

/**
 * Runs a turn's internal calls in order, recording each as an output item, and returns the tool
 * messages for the next turn. A failing tool marks its item failed and throws: the model already
 * ran (and is billed), so the answer fails with what it has.
 */
export async function runServerTools(calls: readonly ToolCall[], tools: ServerTools, items: ServerToolItems): Promise<ChatMessage[]> {
  const results: ChatMessage[] = [];
  for (const call of calls) {
    const fileSearch = tools.fileSearch;
    if (fileSearch === undefined) continue;
    const query = fileSearchQuery(call);
    const handle = items.fileSearchStarted(query);
    let found: FileSearchResult[];
    try {
      found = await fileSearch.run(query);
    } catch (error) {
      await items.fileSearchEnded(handle, 'failed', null);
      throw error;
    }
    await items.fileSearchEnded(handle, 'completed', fileSearch.includeResults ? found : null);
    results.push({ role: 'tool', tool_call_id: call.id, content: fileSearchResultsText(query, found) });
  }
  return results;
}
