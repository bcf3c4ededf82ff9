import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface TestMcpHttpServer {
  url: string;
  /** Headers of every HTTP request the server received. */
  headers: IncomingHttpHeaders[];
  close(): Promise<void>;
}

/** A real MCP server over Streamable HTTP (official SDK, stateless) on 127.0.0.1:0. */
export async function startMcpHttpServer(): Promise<TestMcpHttpServer> {
  const headers: IncomingHttpHeaders[] = [];
  const http: Server = createServer(async (request, response) => {
    headers.push(request.headers);
    const parts: Buffer[] = [];
    for await (const part of request) parts.push(part as Buffer);
    const body = parts.length === 0 ? undefined : JSON.parse(Buffer.concat(parts).toString('utf8'));
    const server = new McpServer({ name: 'notes', version: '1.0.0' });
    server.registerTool('lookup', { description: 'Looks a word up in the notes.', inputSchema: { word: z.string() } }, async ({ word }) => ({
      content: [{ type: 'text', text: `${word}: a note about ${word}` }],
    }));
    server.registerTool('whoami', { description: 'The authorization header the server received.' }, async () => ({
      content: [{ type: 'text', text: String(request.headers['authorization'] ?? '') }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    headers,
    close: () => new Promise<void>((resolve) => {
      http.closeAllConnections();
      http.close(() => resolve());
    }),
  };
}
