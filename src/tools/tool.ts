import type { Principal } from '../auth/authenticate.js';
import type { PlanConfig } from '../config/schema.js';
import type { ToolServices } from './tool-services.js';

/** A JSON Schema object describing a tool's arguments (MCP `inputSchema`, /v1/tools `input_schema`). */
export type JsonSchemaObject = { type: 'object'; properties?: Record<string, unknown>; required?: string[]; [keyword: string]: unknown };

/** Who runs a tool and with what: the caller's key decides which tools exist for it. */
export interface ToolContext {
  /** What the built-in tools may use of the gateway. */
  services: ToolServices;
  principal: Principal;
  accountId: string;
  plan: PlanConfig;
  signal: AbortSignal;
}

/** MCP content blocks (text, image, resource, …) passed through as they are. */
export type ToolContent = { type: string; [field: string]: unknown };

export interface ToolResult {
  content: ToolContent[];
  /** The tool ran and reports a failure the model should see (MCP `isError`). */
  isError: boolean;
  structuredContent?: Record<string, unknown>;
}

/** One tool igw can run: built in (`source: "igw"`) or offered by a configured MCP server (`mcp:NAME`). */
export interface GatewayTool {
  name: string;
  description: string;
  inputSchema: JsonSchemaObject;
  source: string;
  invoke(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult>;
}

export function textResult(text: string, structuredContent?: Record<string, unknown>): ToolResult {
  return structuredContent === undefined ? { content: [{ type: 'text', text }], isError: false } : { content: [{ type: 'text', text }], isError: false, structuredContent };
}

export function errorResult(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
