// A real MCP server over stdio (official SDK) for the gateway tests: igw starts it as a
// configured `mcp_servers` entry. `crash` exits the process, `hang` never answers, `secret` is
// left out by the test config's allowed_tools.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'calc', version: '1.0.0' });
server.registerTool('add', { description: 'Adds two numbers.', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
  content: [{ type: 'text', text: String(a + b) }],
  structuredContent: { sum: a + b },
}));
server.registerTool('divide', { description: 'Divides a by b; dividing by zero is a tool error.', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) =>
  b === 0 ? { content: [{ type: 'text', text: 'cannot divide by zero' }], isError: true } : { content: [{ type: 'text', text: String(a / b) }] },
);
server.registerTool('crash', { description: 'Exits the server process.' }, async () => {
  process.stderr.write('crashing on purpose\n');
  process.exit(3);
});
server.registerTool('hang', { description: 'Never answers.' }, () => new Promise(() => {}));
server.registerTool('secret', { description: 'Not offered through igw.' }, async () => ({ content: [{ type: 'text', text: 'leaked' }] }));
server.registerTool('pid', { description: 'The server process id.' }, async () => ({ content: [{ type: 'text', text: String(process.pid) }] }));
await server.connect(new StdioServerTransport());
