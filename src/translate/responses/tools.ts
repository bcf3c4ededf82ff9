import type { FunctionTool, ToolChoice } from '../chat/types.js';
import { flatFunctionName, type NamespacedName } from './namespaced-names.js';
import { mcpFunctionName, type ListedMcpTool } from './mcp-items.js';
import type { CustomToolDefinition, FileSearchToolDefinition, FunctionToolDefinition, McpToolDefinition, ResponsesTool, ResponsesToolChoice } from './types.js';

/**
 * How each surface tool reaches the model (spec "POST /v1/responses", tools). Every tool the hub
 * can serve is offered as a function; its kind says what a call of it becomes:
 * - `function`: the client's own function → a `function_call` item;
 * - `shell` (also `function_shell`) and `apply_patch`: client-executed built-ins → `shell_call` /
 *   `apply_patch_call` items in OpenAI's shapes, so agents written for them run their own tools;
 * - `file_search`: executed by igw itself against the caller's vector stores → a
 *   `file_search_call` item, and the model continues with the results;
 * - `custom` (free-text input, optionally a grammar): a function whose one argument `input`
 *   carries the text → a `custom_tool_call` item with that `input`;
 * - `namespace`: each of its functions under a flat name (namespaced-names.ts) → a
 *   `function_call` (or `custom_tool_call`) item carrying the tool's own name and its `namespace`.
 * - `mcp`: each tool the MCP server lists (and allowed_tools lets through) as `label__tool`,
 *   added once igw has listed them (withMcpTools) → run by igw on the server (mcp-items.ts).
 * web_search / web_search_preview have no hub form: only a provider that speaks the Responses
 * API natively can run them (endpoints/responses-native.ts).
 */

export type ToolKind = 'function' | 'custom' | 'shell' | 'apply_patch' | 'file_search' | 'mcp';

/** The MCP tool a flat function name stands for. */
export interface McpFunction {
  serverLabel: string;
  name: string;
}

export interface ToolPlan {
  /** The functions offered to the model, in request order. */
  functions: FunctionTool[];
  /** Function name → what a call of it becomes. */
  kinds: ReadonlyMap<string, ToolKind>;
  /** Flat function name → the namespace function it stands for. */
  namespaced: ReadonlyMap<string, NamespacedName>;
  fileSearch: FileSearchToolDefinition | undefined;
  webSearch: boolean;
  /** The request's mcp tools, in request order (their functions come with withMcpTools). */
  mcp: McpToolDefinition[];
  /** Flat function name → the MCP server tool it stands for. */
  mcpFunctions: ReadonlyMap<string, McpFunction>;
}

export const SHELL_FUNCTION: FunctionTool['function'] = {
  name: 'shell',
  description:
    "Runs shell commands in the user's environment, in order, and returns their stdout, stderr and exit codes. Use it to inspect or change files and to run programs.",
  parameters: {
    type: 'object',
    properties: {
      commands: { type: 'array', items: { type: 'string' }, description: 'The commands to run, in order.' },
      timeout_ms: { type: 'integer', description: 'Optional wall-clock limit for the commands, in milliseconds.' },
      max_output_length: { type: 'integer', description: 'Optional limit on the characters of output to return.' },
    },
    required: ['commands'],
    additionalProperties: false,
  },
};

export const APPLY_PATCH_FUNCTION: FunctionTool['function'] = {
  name: 'apply_patch',
  description:
    'Creates, updates or deletes one file in the user\'s workspace. For create_file and update_file, "diff" is the change as a unified diff (V4A: lines prefixed with +, - or a space, hunks introduced by @@). delete_file needs only the path.',
  parameters: {
    type: 'object',
    properties: {
      type: { type: 'string', enum: ['create_file', 'update_file', 'delete_file'] },
      path: { type: 'string', description: 'Path of the file, relative to the workspace root.' },
      diff: { type: 'string', description: 'The unified diff (create_file and update_file).' },
    },
    required: ['type', 'path'],
    additionalProperties: false,
  },
};

export const FILE_SEARCH_FUNCTION: FunctionTool['function'] = {
  name: 'file_search',
  description: "Searches the user's uploaded files and returns the most relevant passages with their file names. Use it to answer questions about those files.",
  parameters: {
    type: 'object',
    properties: { query: { type: 'string', description: 'What to look for, as a short search query.' } },
    required: ['query'],
    additionalProperties: false,
  },
};

/** The request's tools as hub functions plus the kind of each (names are unique: validation checks it). */
export function planTools(tools: readonly ResponsesTool[] | undefined): ToolPlan {
  const functions: FunctionTool[] = [];
  const kinds = new Map<string, ToolKind>();
  const namespaced = new Map<string, NamespacedName>();
  let fileSearch: FileSearchToolDefinition | undefined;
  let webSearch = false;
  const mcp: McpToolDefinition[] = [];
  for (const tool of tools ?? []) {
    switch (tool.type) {
      case 'function':
        functions.push(hubFunction(tool, tool.name));
        kinds.set(tool.name, 'function');
        break;
      case 'custom':
        functions.push(customFunction(tool, tool.name));
        kinds.set(tool.name, 'custom');
        break;
      case 'namespace':
        for (const member of tool.tools) {
          const flat = flatFunctionName(tool.name, member.name);
          // The model sees the namespace's description with each of its tools.
          const description = [tool.description, member.description ?? ''].filter((text) => text !== '').join('\n\n');
          functions.push(member.type === 'custom' ? customFunction({ ...member, description }, flat) : hubFunction({ ...member, description }, flat));
          kinds.set(flat, member.type === 'custom' ? 'custom' : 'function');
          namespaced.set(flat, { namespace: tool.name, name: member.name });
        }
        break;
      case 'shell':
      case 'function_shell':
        functions.push({ type: 'function', function: SHELL_FUNCTION });
        kinds.set(SHELL_FUNCTION.name, 'shell');
        break;
      case 'apply_patch':
        functions.push({ type: 'function', function: APPLY_PATCH_FUNCTION });
        kinds.set(APPLY_PATCH_FUNCTION.name, 'apply_patch');
        break;
      case 'file_search':
        functions.push({ type: 'function', function: FILE_SEARCH_FUNCTION });
        kinds.set(FILE_SEARCH_FUNCTION.name, 'file_search');
        fileSearch = tool;
        break;
      case 'web_search':
      case 'web_search_preview':
        webSearch = true;
        break;
      case 'mcp':
        mcp.push(tool);
        break;
      default: {
        const unknownTool: never = tool;
        throw new Error(`unhandled tool ${JSON.stringify(unknownTool)}`);
      }
    }
  }
  return { functions, kinds, namespaced, fileSearch, webSearch, mcp, mcpFunctions: new Map() };
}

/** The plan with the listed tools of each mcp tool offered as functions (after the mcp tool's own place in the list). */
export function withMcpTools(plan: ToolPlan, listed: ReadonlyArray<{ serverLabel: string; tools: readonly ListedMcpTool[] }>): ToolPlan {
  const functions = [...plan.functions];
  const kinds = new Map(plan.kinds);
  const mcpFunctions = new Map(plan.mcpFunctions);
  for (const { serverLabel, tools } of listed) {
    for (const tool of tools) {
      const name = mcpFunctionName(serverLabel, tool.name);
      const definition: FunctionTool['function'] = { name, parameters: tool.inputSchema };
      if (tool.description !== '') definition.description = tool.description;
      functions.push({ type: 'function', function: definition });
      kinds.set(name, 'mcp');
      mcpFunctions.set(name, { serverLabel, name: tool.name });
    }
  }
  return { ...plan, functions, kinds, mcpFunctions };
}

/**
 * With `tool_choice: {type: "allowed_tools"}`, the functions the model may call: the hub has no
 * such list, so the others are not offered (a chat model cannot call what it is not shown).
 * Entries name a function or custom tool (`{type: "function", name}`), a namespace member
 * (`{type: "function", name, namespace}`), a whole namespace (`{type: "namespace", name}`) or a
 * built-in tool by its type.
 */
export function allowedFunctions(plan: ToolPlan, choice: ResponsesToolChoice | undefined): FunctionTool[] {
  if (typeof choice !== 'object' || choice.type !== 'allowed_tools') return plan.functions;
  const allowed = new Set(
    choice.tools.map((entry) => {
      const namespace = (entry as { namespace?: unknown }).namespace;
      const named = entry.type === 'function' || entry.type === 'custom';
      if (named && typeof namespace === 'string') return flatFunctionName(namespace, entry.name ?? '');
      if (named) return entry.name ?? '';
      if (entry.type === 'namespace') return `namespace:${entry.name ?? ''}`;
      const label = (entry as { server_label?: unknown }).server_label;
      if (entry.type === 'mcp' && typeof label === 'string') return entry.name == null ? `mcp:${label}` : mcpFunctionName(label, entry.name);
      return entry.type === 'function_shell' ? 'shell' : entry.type;
    }),
  );
  return plan.functions.filter((fn) => {
    const member = plan.namespaced.get(fn.function.name);
    const mcpTool = plan.mcpFunctions.get(fn.function.name);
    return allowed.has(fn.function.name) || (member !== undefined && allowed.has(`namespace:${member.namespace}`)) || (mcpTool !== undefined && allowed.has(`mcp:${mcpTool.serverLabel}`));
  });
}

/**
 * A custom tool as a chat function: its free text travels as the one string argument `input`;
 * a grammar is shown to the model in the description, since chat functions take JSON Schema.
 */
function customFunction(tool: Omit<CustomToolDefinition, 'type'>, name: string): FunctionTool {
  const format = tool.format?.type === 'grammar' ? `\n\nThe input must follow this ${tool.format.syntax} grammar:\n${tool.format.definition}` : '';
  return {
    type: 'function',
    function: {
      name,
      description: `${tool.description ?? ''}${format}`.trim() || `The ${name} tool, which takes free text.`,
      parameters: {
        type: 'object',
        properties: { input: { type: 'string', description: 'The input for the tool, as raw text (not JSON).' } },
        required: ['input'],
        additionalProperties: false,
      },
    },
  };
}

function hubFunction(tool: Omit<FunctionToolDefinition, 'type'>, name: string): FunctionTool {
  const definition: FunctionTool['function'] = { name };
  if (tool.description != null && tool.description !== '') definition.description = tool.description;
  if (tool.parameters != null) definition.parameters = tool.parameters;
  if (tool.strict != null) definition.strict = tool.strict;
  return { type: 'function', function: definition };
}

/** Surface tool_choice → hub tool_choice (a built-in tool is chosen by its function's name; allowed_tools by its mode). */
export function hubToolChoice(choice: ResponsesToolChoice): ToolChoice {
  if (typeof choice === 'string') return choice;
  if (choice.type === 'allowed_tools') return choice.mode;
  if (choice.type === 'function' || choice.type === 'custom') return { type: 'function', function: { name: choice.name } };
  if (choice.type === 'web_search' || choice.type === 'web_search_preview') return 'required';
  // One MCP tool by name; "any tool of this server" has no hub form narrower than required.
  if (choice.type === 'mcp') return choice.name == null ? 'required' : { type: 'function', function: { name: mcpFunctionName(choice.server_label, choice.name) } };
  return { type: 'function', function: { name: choice.type } };
}
