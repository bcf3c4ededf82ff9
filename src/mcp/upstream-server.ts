import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerConfig } from '../config/schema.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Logger } from '../util/logger.js';
import type { JsonSchemaObject, ToolContent, ToolResult } from '../tools/tool.js';

export interface UpstreamTool {
  name: string;
  description: string;
  inputSchema: JsonSchemaObject;
  /** MCP tool annotations (readOnlyHint, …), as the server sent them. */
  annotations?: Record<string, unknown>;
}

/** How igw reaches a server over HTTP: a fetch of its own (a client-given URL goes through the SSRF guard, mcp/guarded-fetch.ts). */
export interface UpstreamMcpOptions {
  fetch?: typeof fetch;
}

/** How long a listing stays fresh: servers rarely change their tools, and listing costs a round trip. */
const TOOL_LIST_TTL_MS = 30_000;
/** A stdio server that keeps crashing is not restarted more often than this. */
const RESTART_INTERVAL_MS = 1_000;

/**
 * One configured MCP server as igw's client (official MCP SDK): connected on first use; a local
 * (stdio) server is started by igw, its stderr goes to the log, and it is started again on the
 * next use after it exits (supervision without a restart storm). Every call has the server's
 * timeout; a crash, hang or malformed answer becomes a clean INFERENCE_3105 / 3107 naming the
 * server, never a stalled request.
 */
export class UpstreamMcpServer {
  private client: Client | undefined;
  private connecting: Promise<Client> | undefined;
  private tools: { at: number; list: UpstreamTool[] } | undefined;
  private lastStart = 0;

  constructor(
    readonly name: string,
    private readonly config: McpServerConfig,
    private readonly logger: Logger,
    private readonly version: string,
    private readonly options: UpstreamMcpOptions = {},
  ) {}

  /** The allow-listed tools of the server. */
  async listTools(signal?: AbortSignal): Promise<UpstreamTool[]> {
    if (this.tools !== undefined && Date.now() - this.tools.at < TOOL_LIST_TTL_MS) return this.tools.list;
    const listed = await this.request('tools/list', async (client) => {
      const all: UpstreamTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor }, this.requestOptions(signal));
        for (const tool of page.tools) {
          const listed: UpstreamTool = { name: tool.name, description: tool.description ?? '', inputSchema: tool.inputSchema as JsonSchemaObject };
          if (tool.annotations !== undefined) listed.annotations = tool.annotations as Record<string, unknown>;
          all.push(listed);
        }
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return all;
    });
    const allowed = this.config.allowed_tools;
    const list = allowed === undefined ? listed : listed.filter((tool) => allowed.includes(tool.name));
    this.tools = { at: Date.now(), list };
    return list;
  }

  async callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolResult> {
    const allowed = this.config.allowed_tools;
    if (allowed !== undefined && !allowed.includes(name)) throw new GatewayError('RESOURCE_5404', `The MCP server "${this.name}" offers no tool "${name}" to igw clients.`, { field: 'name' });
    const result = await this.request(`tools/call ${name}`, (client) => client.callTool({ name, arguments: args }, undefined, this.requestOptions(signal)));
    const content = Array.isArray(result.content) ? (result.content as ToolContent[]) : [];
    const structured = result.structuredContent as Record<string, unknown> | undefined;
    return { content, isError: result.isError === true, ...(structured === undefined ? {} : { structuredContent: structured }) };
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.connecting = undefined;
    await client?.close().catch(() => undefined);
  }

  private requestOptions(signal: AbortSignal | undefined) {
    return { timeout: this.config.timeout_ms, maxTotalTimeout: this.config.timeout_ms, ...(signal === undefined ? {} : { signal }) };
  }

  /** Runs one request; failures of the server (not of the caller) become the spec's upstream codes. */
  private async request<T>(what: string, run: (client: Client) => Promise<T>): Promise<T> {
    let client: Client;
    try {
      client = await this.connected();
    } catch (error) {
      throw this.failure(`could not be started or reached (${(error as Error).message})`, error);
    }
    try {
      return await run(client);
    } catch (error) {
      if (error instanceof GatewayError) throw error;
      const { ErrorCode, McpError } = await import('@modelcontextprotocol/sdk/types.js');
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        throw new GatewayError('INFERENCE_3107', `The MCP server "${this.name}" did not answer ${what} within ${this.config.timeout_ms} ms.`, { mcp_server: this.name }, { cause: error });
      }
      if (error instanceof McpError && error.code === ErrorCode.InvalidParams) {
        throw new GatewayError('VALIDATION_4005', `The MCP server "${this.name}" refused the arguments: ${error.message}`, { field: 'arguments', mcp_server: this.name }, { cause: error });
      }
      if (error instanceof McpError && error.code === ErrorCode.MethodNotFound) {
        throw new GatewayError('RESOURCE_5404', `The MCP server "${this.name}" does not know ${what}: ${error.message}`, { mcp_server: this.name }, { cause: error });
      }
      // Aborted by our caller: not the server's fault, pass it on as it is.
      if ((error as Error).name === 'AbortError') throw error;
      // A broken connection or a malformed answer: start afresh on the next call.
      await this.close();
      throw this.failure(`failed on ${what} (${(error as Error).message})`, error);
    }
  }

  private failure(what: string, cause: unknown): GatewayError {
    this.logger.warn('mcp server failure', { mcp_server: this.name, error: (cause as Error)?.message });
    return new GatewayError('INFERENCE_3105', `The MCP server "${this.name}" ${what}.`, { mcp_server: this.name }, { cause });
  }

  private connected(): Promise<Client> {
    if (this.client !== undefined) return Promise.resolve(this.client);
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connect(): Promise<Client> {
    const sinceStart = Date.now() - this.lastStart;
    if (sinceStart < RESTART_INTERVAL_MS) await new Promise((resolve) => setTimeout(resolve, RESTART_INTERVAL_MS - sinceStart));
    this.lastStart = Date.now();
    // The MCP SDK loads with the first connection: ~14 MB resident a gateway without MCP servers in use never needs (issue 18 item 3).
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const client = new Client({ name: 'igw', version: this.version });
    const transport = await this.transport();
    transport.onclose = () => {
      // The server went away (a stdio process exited, a session ended): reconnect on next use.
      if (this.client === client) {
        this.client = undefined;
        this.tools = undefined;
      }
    };
    await client.connect(transport, { timeout: this.config.timeout_ms });
    this.client = client;
    return client;
  }

  private async transport(): Promise<Transport> {
    const config = this.config;
    if ('url' in config) {
      const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
      return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers }, ...(this.options.fetch === undefined ? {} : { fetch: this.options.fetch }) });
    }
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const transport = new StdioClientTransport({
      command: config.command,
      args: config.args,
      // The server gets a minimal environment plus its own variables, not igw's secrets.
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...config.env },
      ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') this.logger.info('mcp server stderr', { mcp_server: this.name, line: line.slice(0, 2000) });
    });
    return transport;
  }
}
