import type { FunctionTool, ToolChoice } from '../chat/types.js';
import type { AnthropicTool, AnthropicToolChoice } from './types.js';

/**
 * Hub function tools → Anthropic tools. Anthropic requires `input_schema` with `type: "object"`
 * at the root; a tool without parameters gets the empty object schema, and a schema that leaves
 * out the root type gets it added (OpenAI accepts both). `strict` has no counterpart here.
 */
export function convertTools(tools: readonly FunctionTool[]): AnthropicTool[] {
  return tools.map((tool) => {
    const parameters = tool.function.parameters;
    const inputSchema = parameters === undefined ? { type: 'object' } : parameters['type'] === undefined ? { type: 'object', ...parameters } : parameters;
    return {
      name: tool.function.name,
      ...(tool.function.description === undefined ? {} : { description: tool.function.description }),
      input_schema: inputSchema,
    };
  });
}

/**
 * tool_choice and parallel_tool_calls → Anthropic's one `tool_choice` object: auto → auto,
 * none → none, required → any, a named function → tool. `parallel_tool_calls: false` becomes
 * `disable_parallel_tool_use: true` (on auto when the client named no choice). Undefined when
 * there is nothing to say, so Anthropic's default (auto, parallel allowed) applies.
 */
export function convertToolChoice(choice: ToolChoice | undefined, parallelToolCalls: boolean | undefined): AnthropicToolChoice | undefined {
  const sequential = parallelToolCalls === false ? { disable_parallel_tool_use: true } : {};
  if (choice === undefined) return parallelToolCalls === false ? { type: 'auto', disable_parallel_tool_use: true } : undefined;
  if (choice === 'none') return { type: 'none' };
  if (choice === 'auto') return { type: 'auto', ...sequential };
  if (choice === 'required') return { type: 'any', ...sequential };
  return { type: 'tool', name: choice.function.name, ...sequential };
}
