import type { McpServerConfig } from '../config/schema.js';
import type { Logger } from '../util/logger.js';
import { UpstreamMcpServer } from './upstream-server.js';

/** The configured MCP servers (`mcp_servers`), each connected on first use and closed with the gateway. */
export class UpstreamMcpServers {
  private readonly servers = new Map<string, UpstreamMcpServer>();

  constructor(configs: Record<string, McpServerConfig>, logger: Logger, version: string) {
    for (const [name, config] of Object.entries(configs)) this.servers.set(name, new UpstreamMcpServer(name, config, logger, version));
  }

  get(name: string): UpstreamMcpServer | undefined {
    return this.servers.get(name);
  }

  all(): UpstreamMcpServer[] {
    return [...this.servers.values()];
  }

  async close(): Promise<void> {
    await Promise.all(this.all().map((server) => server.close()));
  }
}
