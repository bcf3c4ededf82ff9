import { describe, expect, it } from 'vitest';
import { mcpResultText, needsApproval, offeredMcpTools } from '../../../../src/translate/responses/mcp-items.js';
import type { McpToolDefinition } from '../../../../src/translate/responses/types.js';

const tools = [
  { name: 'read', annotations: { readOnlyHint: true } },
  { name: 'write', annotations: { readOnlyHint: false } },
  { name: 'plain' },
];
const definition = (extra: Partial<McpToolDefinition>): McpToolDefinition => ({ type: 'mcp', server_label: 's', ...extra });
const names = (list: Array<{ name: string }>) => list.map((tool) => tool.name);

describe('mcp tool filters (OpenAI Tool.Mcp semantics)', () => {
  it.each([
    [undefined, ['read', 'write', 'plain']],
    [null, ['read', 'write', 'plain']],
    [['write', 'nope'], ['write']],
    [{ tool_names: ['plain', 'read'] }, ['read', 'plain']],
    [{ read_only: true }, ['read']],
    [{ tool_names: ['write'], read_only: true }, []],
  ])('allowed_tools %j offers %j', (allowed, expected) => {
    expect(names(offeredMcpTools(definition({ allowed_tools: allowed as McpToolDefinition['allowed_tools'] }), tools))).toEqual(expected);
  });

  it.each([
    [undefined, ['read', 'write', 'plain']],
    ['always', ['read', 'write', 'plain']],
    ['never', []],
    [{ never: { tool_names: ['read'] } }, ['write', 'plain']],
    [{ never: { read_only: true } }, ['write', 'plain']],
    [{ always: { tool_names: ['write'] }, never: { tool_names: ['write', 'plain'] } }, ['read', 'write']],
  ])('require_approval %j asks for %j', (rule, expected) => {
    const asked = tools.filter((tool) => needsApproval(definition({ require_approval: rule as McpToolDefinition['require_approval'] }), tool));
    expect(names(asked)).toEqual(expected);
  });

  it('a result is its text parts, other parts as JSON', () => {
    expect(mcpResultText([{ type: 'text', text: 'a' }, { type: 'image', data: 'AA', mimeType: 'image/png' }])).toBe('a\n{"type":"image","data":"AA","mimeType":"image/png"}');
  });
});
