import type { ResponseFormat } from '../chat/types.js';
import type { AnthropicTool } from './types.js';

/** Tool name used when the json_schema name is not a valid Anthropic tool name, and for json_object. */
export const JSON_RESPONSE_TOOL = 'json_response';

export type StructuredOutputPlan =
  /** The answer is requested as the input of one forced tool; the response side turns it back into content. */
  | { mode: 'forced_tool'; tool: AnthropicTool }
  /** The answer is requested by a system instruction; the response is the model's text as is. */
  | { mode: 'instruction'; instruction: string };

/**
 * response_format json_object / json_schema on a provider without a JSON mode.
 *
 * Preferred: a forced tool. The schema becomes the `input_schema` of a single tool and
 * `tool_choice` forces it, so the answer is a JSON object shaped by the schema (Anthropic's own
 * guidance for JSON output); the response and stream mappers turn that tool input back into
 * message content with finish_reason `stop`, so the client sees ordinary JSON content.
 *
 * Fallback: a system instruction carrying the schema, used when a tool cannot be forced — the
 * client sent its own tools (forcing ours would stop the model from calling them), extended
 * thinking is on (Anthropic allows only auto/none tool_choice with thinking), or the schema's
 * root is not an object (tool inputs are always objects). The model is then asked, not forced.
 */
export function planStructuredOutput(format: ResponseFormat | undefined, constraints: { clientTools: boolean; thinking: boolean }): StructuredOutputPlan | undefined {
  if (format === undefined || format.type === 'text') return undefined;
  const schema = format.type === 'json_schema' ? format.json_schema.schema : undefined;
  const objectRoot = schema === undefined || schema['type'] === 'object' || (schema['type'] === undefined && schema['properties'] !== undefined);

  if (!constraints.clientTools && !constraints.thinking && objectRoot) {
    const name = format.type === 'json_schema' && /^[a-zA-Z0-9_-]{1,64}$/.test(format.json_schema.name) ? format.json_schema.name : JSON_RESPONSE_TOOL;
    const description = format.type === 'json_schema' ? format.json_schema.description : undefined;
    return {
      mode: 'forced_tool',
      tool: {
        name,
        description: `${description === undefined ? '' : `${description}\n\n`}Give your final answer by calling this tool: its input is the answer, as a JSON object.`,
        input_schema: schema === undefined ? { type: 'object' } : schema['type'] === undefined ? { type: 'object', ...schema } : schema,
      },
    };
  }
  const instruction =
    schema === undefined
      ? 'Respond with a single JSON object and nothing else: no text, no code fences before or after it.'
      : `Respond with a single JSON value that conforms to the following JSON schema, and nothing else: no text, no code fences before or after it.\n\nJSON schema:\n${JSON.stringify(schema)}`;
  return { mode: 'instruction', instruction };
}
