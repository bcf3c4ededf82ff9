import { z } from 'zod';
import { hasNestedRepetition } from './matchers.js';
import { placeholdersOf } from './template.js';

/**
 * The blueprint and skill document formats (README "Blueprints and skills"). The JSON Schema
 * files in schemas/ describe the same shapes for editors and other tools; a test runs one set of
 * documents through both. Checks JSON Schema cannot express (a pattern compiles, every
 * placeholder is declared, a required variable has no default) are the superRefine below.
 */

export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const RULE_FLAGS = /^[imsu]*$/;

const variableValue = z.union([z.string().max(10_000), z.number(), z.boolean()]);

const variableDeclaration = z
  .object({
    description: z.string().max(1000).optional(),
    required: z.boolean().optional(),
    default: variableValue.optional(),
  })
  .strict();

/** What a railguard or override looks for: a regular expression or a list of whole words. */
const matcherFields = {
  id: z.string().min(1).max(100).optional(),
  pattern: z.string().min(1).max(1000).optional(),
  flags: z.string().regex(RULE_FLAGS, 'flags may only contain i, m, s, u').optional(),
  words: z.array(z.string().min(1).max(200)).min(1).max(1000).optional(),
  max_match_chars: z.number().int().min(1).max(10_000).optional(),
};

const railguardRule = z.object({ ...matcherFields, message: z.string().min(1).max(4000) }).strict();
const overrideRule = z.object({ ...matcherFields, reply: z.string().min(1).max(20_000) }).strict();

const params = z
  .object({
    temperature: z.number().min(0).max(2).optional(),
    top_p: z.number().min(0).max(1).optional(),
    top_k: z.number().int().positive().optional(),
    min_p: z.number().min(0).max(1).optional(),
    max_tokens: z.number().int().positive().optional(),
    frequency_penalty: z.number().min(-2).max(2).optional(),
    presence_penalty: z.number().min(-2).max(2).optional(),
    stop: z.union([z.string(), z.array(z.string()).max(4)]).optional(),
    seed: z.number().int().optional(),
    reasoning_effort: z.enum(['low', 'medium', 'high']).optional(),
  })
  .strict();

export const functionToolSchema = z
  .object({
    type: z.literal('function'),
    function: z
      .object({
        name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'function names use letters, digits, _ or -, at most 64'),
        description: z.string().max(4000).optional(),
        parameters: z.record(z.string(), z.unknown()).optional(),
        strict: z.boolean().optional(),
      })
      .strict(),
  })
  .strict();

type Matcher = { pattern?: string | undefined; flags?: string | undefined; words?: string[] | undefined };

function checkMatcher(rule: Matcher, path: PropertyKey[], context: z.RefinementCtx): void {
  if ((rule.pattern === undefined) === (rule.words === undefined)) {
    context.addIssue({ code: 'custom', path, message: 'give exactly one of "pattern" or "words"' });
    return;
  }
  if (rule.pattern !== undefined) {
    try {
      new RegExp(rule.pattern, rule.flags ?? 'i');
    } catch (error) {
      context.addIssue({ code: 'custom', path: [...path, 'pattern'], message: `not a valid regular expression (${(error as Error).message})` });
      return;
    }
    if (hasNestedRepetition(rule.pattern)) {
      context.addIssue({ code: 'custom', path: [...path, 'pattern'], message: 'a repeated group contains a repetition (like (a+)+), which can take exponential time; rewrite it without the nesting' });
    }
  }
}

function checkPlaceholders(text: string | undefined, declared: ReadonlySet<string>, path: PropertyKey[], context: z.RefinementCtx): void {
  if (text === undefined) return;
  for (const name of placeholdersOf(text)) {
    if (!declared.has(name)) context.addIssue({ code: 'custom', path, message: `placeholder {{${name}}} is not declared in "variables"` });
  }
}

export const blueprintSchema = z
  .object({
    name: z.string().min(1).max(200),
    description: z.string().max(2000).optional(),
    model: z.string().min(1).max(256).optional(),
    system: z.string().max(100_000).optional(),
    variables: z.record(z.string().regex(VARIABLE_NAME, 'variable names are letters, digits and _, not starting with a digit'), variableDeclaration).optional(),
    params: params.optional(),
    railguards: z
      .object({ input: z.array(railguardRule).max(200).optional(), output: z.array(railguardRule).max(200).optional() })
      .strict()
      .optional(),
    overrides: z.array(overrideRule).max(200).optional(),
  })
  .strict()
  .superRefine((blueprint, context) => {
    const declared = new Set(Object.keys(blueprint.variables ?? {}));
    for (const [name, declaration] of Object.entries(blueprint.variables ?? {})) {
      if (declaration.required === true && declaration.default !== undefined) {
        context.addIssue({ code: 'custom', path: ['variables', name, 'default'], message: 'a required variable has no default (drop one of the two)' });
      }
    }
    checkPlaceholders(blueprint.system, declared, ['system'], context);
    for (const side of ['input', 'output'] as const) {
      blueprint.railguards?.[side]?.forEach((rule, index) => {
        checkMatcher(rule, ['railguards', side, index], context);
        checkPlaceholders(rule.message, declared, ['railguards', side, index, 'message'], context);
      });
    }
    blueprint.overrides?.forEach((rule, index) => {
      checkMatcher(rule, ['overrides', index], context);
      checkPlaceholders(rule.reply, declared, ['overrides', index, 'reply'], context);
    });
  });

export const skillSchema = z
  .object({
    name: z.string().min(1).max(200),
    description: z.string().max(2000).optional(),
    instructions: z.string().max(100_000).optional(),
    tools: z.array(functionToolSchema).max(128).optional(),
  })
  .strict()
  .superRefine((skill, context) => {
    if (skill.instructions === undefined && (skill.tools === undefined || skill.tools.length === 0)) {
      context.addIssue({ code: 'custom', path: [], message: 'a skill needs "instructions", "tools" or both' });
    }
    const seen = new Set<string>();
    skill.tools?.forEach((tool, index) => {
      if (seen.has(tool.function.name)) context.addIssue({ code: 'custom', path: ['tools', index, 'function', 'name'], message: `tool "${tool.function.name}" is defined twice` });
      seen.add(tool.function.name);
    });
  });

export type Blueprint = z.output<typeof blueprintSchema>;
export type Skill = z.output<typeof skillSchema>;
export type RailguardRule = z.output<typeof railguardRule>;
export type OverrideRule = z.output<typeof overrideRule>;
export type BlueprintParams = z.output<typeof params>;
export type VariableValue = z.output<typeof variableValue>;
