import { GatewayError } from '../errors/gateway-error.js';
import type { ChatMessage, ChatRequest, FunctionTool } from '../translate/chat/types.js';
import type { Blueprint, BlueprintParams, Skill } from './documents.js';
import { compileMatcher, firstMatching } from './matchers.js';
import { OutputGuard } from './output-guard.js';
import { renderTemplate } from './template.js';
import { resolveVariables } from './variables.js';

/** Where a skill came from, for error messages and details.field (`skill_configs[0]`, `skill_ids[1]`). */
export interface SkillSource {
  field: string;
  skill: Skill;
}

export interface BlueprintInput {
  blueprint?: Blueprint | undefined;
  skills: readonly SkillSource[];
  variables?: Readonly<Record<string, unknown>> | undefined;
}

/** An answer decided before any model call. */
export interface DirectAnswer {
  finishReason: 'blocked' | 'blueprint_override';
  text: string;
}

export interface ShapedRequest {
  request: ChatRequest;
  direct?: DirectAnswer;
  outputGuard?: OutputGuard;
}

/** Text of a message's content (text parts joined by newlines; images ignored). */
export function messageText(message: ChatMessage): string {
  const content = message.content;
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' ? part.text : '')).filter((text) => text !== '').join('\n');
}

/**
 * Request values win; a blueprint's temperature is not added beside a request's top_p (or the
 * reverse), since the spec says to set one of the two, and max_tokens yields to a request's
 * max_completion_tokens.
 */
function applyParams(request: ChatRequest, params: BlueprintParams | undefined): void {
  if (params === undefined) return;
  const target = request as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || target[key] !== undefined) continue;
    if (key === 'temperature' && request.top_p !== undefined) continue;
    if (key === 'top_p' && request.temperature !== undefined) continue;
    if (key === 'max_tokens' && request.max_completion_tokens !== undefined) continue;
    target[key] = value;
  }
}

/** Request tools first, then each skill's in order; a name defined twice is a 400 naming both sources. */
function mergeTools(requestTools: readonly FunctionTool[] | undefined, skills: readonly SkillSource[]): FunctionTool[] | undefined {
  const owners = new Map<string, string>();
  const merged: FunctionTool[] = [];
  for (const tool of requestTools ?? []) {
    owners.set(tool.function.name, 'the request\'s "tools"');
    merged.push(tool);
  }
  for (const { field, skill } of skills) {
    skill.tools?.forEach((tool, index) => {
      const name = tool.function.name;
      const owner = owners.get(name);
      if (owner !== undefined) {
        throw new GatewayError('VALIDATION_4005', `Tool name clash: "${name}" from ${field} (skill "${skill.name}") is already defined by ${owner}; rename one of them.`, {
          field: `${field}.tools[${index}].function.name`,
          tool: name,
        });
      }
      owners.set(name, `${field} (skill "${skill.name}")`);
      merged.push(tool as FunctionTool);
    });
  }
  return merged.length === 0 ? undefined : merged;
}

/** tool_choice is checked against the merged tools (the request schema leaves it to us when skills are present). */
function checkToolChoice(request: ChatRequest): void {
  const choice = request.tool_choice;
  if (typeof choice === 'object' && !request.tools?.some((tool) => tool.function.name === choice.function.name)) {
    throw new GatewayError('VALIDATION_4005', `Invalid value for "tool_choice.function.name": no tool named "${choice.function.name}" in tools or skills.`, { field: 'tool_choice.function.name' });
  }
  if (choice === 'required' && (request.tools === undefined || request.tools.length === 0)) {
    throw new GatewayError('VALIDATION_4005', 'Invalid value for "tool_choice": tool_choice "required" needs at least one tool.', { field: 'tool_choice' });
  }
}

/**
 * The blueprint engine (pure): turns a hub request (its `model` may be empty when the blueprint
 * names one) plus a blueprint and skills into the request to send, or into a direct answer:
 *  1. variables: request values over declared defaults (VALIDATION_4002 for a missing required one);
 *  2. model and params: request values win over the blueprint's;
 *  3. one leading system message: the rendered blueprint `system`, then each skill's instructions;
 *  4. tools: the request's, then the skills' (clash → VALIDATION_4005);
 *  5. input railguards over every user message → `blocked` with the rule's message;
 *  6. overrides over the last message when it is the user's → `blueprint_override` with the reply;
 *  7. output railguards → an OutputGuard for the answer.
 */
export function shapeChatRequest(hub: ChatRequest, input: BlueprintInput): ShapedRequest {
  const { blueprint, skills } = input;
  if (blueprint === undefined && input.variables !== undefined && Object.keys(input.variables).length > 0) {
    throw new GatewayError('VALIDATION_4005', '"variables" needs a blueprint: send blueprint_config or blueprint_id with it.', { field: 'variables' });
  }
  const values = blueprint === undefined ? {} : resolveVariables(blueprint, input.variables);
  const request: ChatRequest = { ...hub, messages: [...hub.messages] };
  if (request.model === '' || request.model === undefined) {
    if (blueprint?.model === undefined) {
      throw new GatewayError('VALIDATION_4002', `Missing required field "model"${blueprint === undefined ? '' : ` (blueprint "${blueprint.name}" names no default model)`}.`, { field: 'model' });
    }
    request.model = blueprint.model;
  }
  applyParams(request, blueprint?.params);

  const instructions = [blueprint?.system === undefined ? '' : renderTemplate(blueprint.system, values), ...skills.map(({ skill }) => skill.instructions ?? '')].filter((text) => text.trim() !== '');
  if (instructions.length > 0) request.messages.unshift({ role: 'system', content: instructions.join('\n\n') });

  if (skills.length > 0) {
    const tools = mergeTools(request.tools, skills);
    if (tools !== undefined) request.tools = tools;
    checkToolChoice(request);
  }

  const shaped: ShapedRequest = { request };
  if (blueprint === undefined) return shaped;

  const inputRules = (blueprint.railguards?.input ?? []).map((rule) => compileMatcher(rule));
  if (inputRules.length > 0) {
    for (const message of hub.messages) {
      if (message.role !== 'user') continue;
      const hit = firstMatching(inputRules, messageText(message));
      if (hit !== undefined) return { request, direct: { finishReason: 'blocked', text: renderTemplate(hit.rule.message, values) } };
    }
  }
  const last = hub.messages.at(-1);
  if (blueprint.overrides !== undefined && last?.role === 'user') {
    const hit = firstMatching(blueprint.overrides.map((rule) => compileMatcher(rule)), messageText(last));
    if (hit !== undefined) return { request, direct: { finishReason: 'blueprint_override', text: renderTemplate(hit.rule.reply, values) } };
  }
  const outputRules = blueprint.railguards?.output ?? [];
  if (outputRules.length > 0) shaped.outputGuard = new OutputGuard(outputRules, values);
  return shaped;
}
