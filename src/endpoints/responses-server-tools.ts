import type { ChatMessage, ToolCall } from '../translate/chat/types.js';
import { fileSearchResultsText } from '../translate/responses/file-search-text.js';
import { fileSearchQuery } from '../translate/responses/output-items.js';
import type { FileSearchResult, OutputMcpApprovalRequestItem, OutputMcpCallItem } from '../translate/responses/types.js';
import type { FileSearch } from './responses-file-search.js';
import type { McpSession } from './responses-mcp.js';

/**
 * How the answer's wire records a server-side tool call: its output item started (stream:
 * `*.in_progress` events), then completed or failed, with what the tool found when the client
 * asked to see it. The JSON answer and the event stream each implement it.
 */
export interface ServerToolItems {
  fileSearchStarted(query: string): number;
  fileSearchEnded(handle: number, status: 'completed' | 'failed', results: FileSearchResult[] | null): Promise<void> | void;
  /** An mcp_call about to run: returns the output index its item takes (`pending` makes the in-progress item for it). */
  mcpCallStarted(pending: (outputIndex: number) => OutputMcpCallItem): number;
  mcpCallEnded(outputIndex: number, item: OutputMcpCallItem): Promise<void> | void;
  /** A call that waits for the client's approval: the answer ends after this turn. */
  mcpApprovalRequested(request: (outputIndex: number) => OutputMcpApprovalRequestItem): Promise<void> | void;
}

/**
 * Tools igw runs itself between model turns (spec "POST /v1/responses", tools): the model calls
 * them like functions, igw runs them and hands the results back for the next turn: file_search,
 * and the tools of the request's `mcp` servers (issue 20 item 3, endpoints/responses-mcp.ts).
 */
export interface ServerTools {
  fileSearch: FileSearch | undefined;
  mcp?: McpSession | undefined;
}

/** Whether any server-side tool is offered, so a turn's internal calls can be run at all. */
export function hasServerTools(tools: ServerTools): boolean {
  return tools.fileSearch !== undefined || tools.mcp !== undefined;
}

/**
 * Runs a turn's internal calls in order, recording each as an output item, and returns the tool
 * messages for the next turn. A failing search marks its item failed and throws: the model
 * already ran (and is billed), so the answer fails with what it has. A failing MCP tool is an
 * mcp_call with `error` the model reads on its next turn; a call needing approval gets no result
 * (the caller ends the answer with its request).
 */
export async function runServerTools(calls: readonly ToolCall[], tools: ServerTools, items: ServerToolItems): Promise<ChatMessage[]> {
  const results: ChatMessage[] = [];
  for (const call of calls) {
    const mcp = tools.mcp;
    if (mcp?.owns(call) === true) {
      if (mcp.needsApproval(call)) {
        await items.mcpApprovalRequested((index) => mcp.approvalRequest(call, index));
        continue;
      }
      const index = items.mcpCallStarted((outputIndex) => mcp.pending(call, outputIndex));
      const ran = await mcp.run(call, index);
      await items.mcpCallEnded(index, ran.item);
      results.push(ran.message);
      continue;
    }
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
