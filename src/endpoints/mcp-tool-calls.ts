import { GatewayError, isGatewayError } from '../errors/gateway-error.js';
import type { RequestCall } from '../http/request-call.js';
import { requestLogEntry } from '../inference/index.js';
import { checkMcpUrl, guardedFetch, RefusedMcpUrl } from '../mcp/guarded-fetch.js';
import { UpstreamMcpServer, type UpstreamTool } from '../mcp/upstream-server.js';
import { validateToolArguments } from '../tools/validate-arguments.js';
import { mcpResultText } from '../translate/responses/mcp-items.js';
import { VERSION } from '../util/version.js';

/**
 * MCP servers a model surface reaches for the model (issue 20 item 3): the Responses `mcp` tool
 * (responses-mcp.ts) and the Messages API's `mcp_servers` (messages-mcp.ts) share how a
 * client-given URL is connected and how one tool call runs and is logged.
 */

/** How long one listing or call on a client-given server may take; configured servers have their own timeout_ms. */
const REMOTE_TIMEOUT_MS = 30_000;

/** A client-given server URL: SSRF-checked (a refusal is a 400 naming `field`), connected with `headers`, closed with the request. */
export async function connectMcpUrl(call: RequestCall, label: string, url: string, headers: Record<string, string>, field: string): Promise<UpstreamMcpServer> {
  const allowPrivate = call.app.config.server.allow_private_urls;
  try {
    await checkMcpUrl(url, allowPrivate);
  } catch (error) {
    if (!(error instanceof RefusedMcpUrl)) throw error;
    throw new GatewayError('VALIDATION_4005', `The MCP server URL in "${field}" ${error.message}.`, { field });
  }
  const guarded = guardedFetch(allowPrivate);
  const server = new UpstreamMcpServer(label, { url, headers, timeout_ms: REMOTE_TIMEOUT_MS }, call.app.logger, VERSION, { fetch: guarded.fetch });
  call.response.once('close', () => void server.close().finally(() => guarded.close()));
  return server;
}

/**
 * One tool call on its server, as an outcome the model reads: arguments that are not JSON or do
 * not match the tool's schema, a server that crashes, hangs past its timeout or answers garbage,
 * and a result flagged isError are all `{error}`. Each call is a request-log line `tool:LABEL__TOOL`
 * (as /v1/mcp logs them), so `igw usage` shows tool calls. An abort of the request is re-thrown.
 */
export async function callMcpTool(call: RequestCall, endpoint: string, serverLabel: string, server: UpstreamMcpServer, tool: UpstreamTool, argumentText: string): Promise<{ output: string } | { error: string }> {
  const started = call.app.clock.now();
  const log = { model: `tool:${serverLabel}__${tool.name}` } as { model: string; error_code?: string };
  let status = 200;
  try {
    let args: unknown;
    try {
      args = argumentText.trim() === '' ? {} : JSON.parse(argumentText);
    } catch {
      throw new GatewayError('VALIDATION_4005', `The arguments for the tool "${tool.name}" are not valid JSON.`, { field: 'arguments' });
    }
    const checked = validateToolArguments(tool.name, tool.inputSchema, args);
    const result = await server.callTool(tool.name, checked, call.signal);
    const text = mcpResultText(result.content);
    return result.isError ? { error: text } : { output: text };
  } catch (error) {
    if (!isGatewayError(error)) {
      if (call.signal.aborted) throw error;
      status = 502;
      log.error_code = 'INFERENCE_3105';
      return { error: `The MCP server "${serverLabel}" failed: ${(error as Error).message}` };
    }
    status = error.status;
    log.error_code = error.code;
    return { error: error.message };
  } finally {
    const now = call.app.clock.now();
    const entry = requestLogEntry(now, call.requestId, endpoint, { keyId: call.principal.keyId, account: call.account.id }, log, status, now - started);
    call.app.store.requestLog.append(entry);
    call.app.activity.recordRequest(entry);
  }
}

