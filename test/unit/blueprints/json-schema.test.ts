import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { blueprintSchema, skillSchema } from '../../../src/blueprints/documents.js';

/** The shipped JSON Schema files and the zod schemas igw validates with must agree on every document here. */
const load = (name: string) => JSON.parse(readFileSync(new URL(`../../../schemas/${name}`, import.meta.url), 'utf8')) as object;
const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
const blueprintJson = ajv.compile(load('blueprint.schema.json'));
const skillJson = ajv.compile(load('skill.schema.json'));

const tool = { type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };

const blueprints: Array<[string, unknown, boolean]> = [
  ['minimal', { name: 'b' }, true],
  [
    'complete',
    {
      name: 'support',
      description: 'Support bot',
      model: 'local-echo',
      system: 'You work for {{company}}. Answer in {{language}}.',
      variables: { company: { required: true, description: 'Company name' }, language: { default: 'English' }, tone: { default: 3 } },
      params: { temperature: 0.3, max_tokens: 400, stop: ['\n\n'], seed: 7, reasoning_effort: 'low' },
      railguards: {
        input: [{ id: 'weapons', words: ['bomb', 'explosive'], message: 'I cannot help with that.' }],
        output: [{ pattern: 'sk-[A-Za-z0-9]{20,}', flags: '', max_match_chars: 200, message: 'The answer contained a secret.' }],
      },
      overrides: [{ pattern: '^\\s*(hi|hello)\\s*$', reply: 'Hello from {{company}}!' }],
    },
    true,
  ],
  ['no name', { system: 'x' }, false],
  ['empty name', { name: '' }, false],
  ['unknown field', { name: 'b', temprature: 1 }, false],
  ['unknown param', { name: 'b', params: { temprature: 1 } }, false],
  ['temperature out of range', { name: 'b', params: { temperature: 3 } }, false],
  ['bad variable name', { name: 'b', variables: { '1x': {} } }, false],
  ['variable default of a wrong type', { name: 'b', variables: { a: { default: [1] } } }, false],
  ['rule without message', { name: 'b', railguards: { input: [{ words: ['x'] }] } }, false],
  ['rule with pattern and words', { name: 'b', railguards: { output: [{ words: ['x'], pattern: 'y', message: 'm' }] } }, false],
  ['rule with neither', { name: 'b', overrides: [{ reply: 'r' }] }, false],
  ['bad flags', { name: 'b', railguards: { input: [{ pattern: 'x', flags: 'g', message: 'm' }] } }, false],
  ['empty word list', { name: 'b', railguards: { input: [{ words: [], message: 'm' }] } }, false],
  ['unknown railguard side', { name: 'b', railguards: { middle: [] } }, false],
];

const skills: Array<[string, unknown, boolean]> = [
  ['instructions only', { name: 's', instructions: 'Be brief.' }, true],
  ['tools only', { name: 's', tools: [tool] }, true],
  ['both', { name: 's', description: 'd', instructions: 'i', tools: [tool] }, true],
  ['neither', { name: 's' }, false],
  ['empty tools only', { name: 's', tools: [] }, false],
  ['bad tool name', { name: 's', tools: [{ type: 'function', function: { name: 'has space' } }] }, false],
  ['non-function tool', { name: 's', tools: [{ type: 'web_search' }] }, false],
  ['unknown field', { name: 's', instructions: 'i', prompt: 'x' }, false],
];

describe('blueprint documents: JSON Schema and zod agree', () => {
  it.each(blueprints)('%s', (_name, document, valid) => {
    expect(blueprintJson(document)).toBe(valid);
    expect(blueprintSchema.safeParse(document).success).toBe(valid);
  });
});

describe('skill documents: JSON Schema and zod agree', () => {
  it.each(skills)('%s', (_name, document, valid) => {
    expect(skillJson(document)).toBe(valid);
    expect(skillSchema.safeParse(document).success).toBe(valid);
  });
});
