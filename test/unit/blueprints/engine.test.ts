import { describe, expect, it } from 'vitest';
import { shapeChatRequest, type BlueprintInput } from '../../../src/blueprints/apply.js';
import { blueprintSchema, skillSchema, type Blueprint } from '../../../src/blueprints/documents.js';
import { placeholdersOf, renderTemplate } from '../../../src/blueprints/template.js';
import { resolveVariables } from '../../../src/blueprints/variables.js';
import { compileMatcher, hasNestedRepetition, scan } from '../../../src/blueprints/matchers.js';
import type { ChatRequest } from '../../../src/translate/chat/types.js';
import { gatewayErrorOf } from '../../helpers/thrown.js';

const bp = (document: Record<string, unknown>): Blueprint => blueprintSchema.parse({ name: 'bp', ...document });
const hub = (content: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({ model: 'm', messages: [{ role: 'user', content }], ...extra });

describe('templates', () => {
  it.each([
    ['Hi {{name}}!', { name: 'Ada' }, 'Hi Ada!'],
    ['{{ name }} and {{name}}', { name: 'x' }, 'x and x'],
    ['{{ 1 + 1 }} {{#each}} {{}} stay literal', {}, '{{ 1 + 1 }} {{#each}} {{}} stay literal'],
    ['value {{v}} is not re-expanded', { v: '{{v}}' }, 'value {{v}} is not re-expanded'],
  ])('renders %j', (template, values, expected) => {
    expect(renderTemplate(template, values)).toBe(expected);
  });

  it('lists placeholders once, in order', () => {
    expect(placeholdersOf('{{b}} {{a}} {{ b }} {{9x}}')).toEqual(['b', 'a']);
  });
});

describe('variables', () => {
  const blueprint = bp({ system: '{{who}} {{lang}} {{opt}}', variables: { who: { required: true }, lang: { default: 'English' }, opt: {} } });
  it.each([
    [{ who: 'Ada' }, { who: 'Ada', lang: 'English', opt: '' }],
    [{ who: 'Ada', lang: 'French' }, { who: 'Ada', lang: 'French', opt: '' }],
    [{ who: 42, opt: true }, { who: '42', lang: 'English', opt: 'true' }],
  ])('request values over defaults: %j', (given, expected) => {
    expect(resolveVariables(blueprint, given)).toEqual(expected);
  });

  it.each([
    [{}, 'VALIDATION_4002', 'variables.who', /Missing required variable "who"/],
    [{ who: 'a', lnag: 'x' }, 'VALIDATION_4005', 'variables.lnag', /Unknown variable "lnag"/],
    [{ who: { nested: 1 } }, 'VALIDATION_4005', 'variables.who', /string, number or boolean/],
  ])('refuses %j', (given, code, field, message) => {
    const error = gatewayErrorOf(() => resolveVariables(blueprint, given));
    expect(error.code).toBe(code);
    expect(error.details).toMatchObject({ field });
    expect(error.message).toMatch(message);
  });
});

describe('matchers', () => {
  it.each([
    [{ words: ['secret'] }, 'a Secret here', true],
    [{ words: ['secret'] }, 'secretary', false],
    [{ words: ['top secret'] }, 'it is top   secret!', true],
    [{ words: ['café'] }, 'un CAFÉ noir', true],
    [{ pattern: 'pass(word)?' }, 'my PASSWORD', true],
    [{ pattern: 'pass(word)?', flags: '' }, 'my PASSWORD', false],
    [{ pattern: 'x*' }, 'nothing', false],
  ])('%j on %j → %s', (rule, text, expected) => {
    expect(scan(compileMatcher(rule), text, true).match !== undefined).toBe(expected);
  });

  it('a match at the end of unfinished text stays open (it may grow into another word)', () => {
    const matcher = compileMatcher({ words: ['secret'] });
    expect(scan(matcher, 'the secret', false)).toEqual({ openStart: 4 });
    expect(scan(matcher, 'the secrets', false)).toEqual({});
    expect(scan(matcher, 'the secret.', false).match).toEqual({ start: 4, end: 10 });
  });
});

describe('documents', () => {
  it.each([
    [{ name: 'x', system: '{{undeclared}}' }, 'system', /not declared/],
    [{ name: 'x', variables: { a: { required: true, default: 'v' } } }, 'variables.a.default', /required variable has no default/],
    [{ name: 'x', railguards: { input: [{ message: 'm' }] } }, 'railguards.input.0', /exactly one of/],
    [{ name: 'x', railguards: { input: [{ pattern: '(', message: 'm' }] } }, 'railguards.input.0.pattern', /not a valid regular expression/],
    [{ name: 'x', overrides: [{ words: ['a'], pattern: 'b', reply: 'r' }] }, 'overrides.0', /exactly one of/],
  ])('blueprint %j is refused at %s', (document, path, message) => {
    const result = blueprintSchema.safeParse(document);
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.path.join('.')).toBe(path);
    expect(result.error!.issues[0]!.message).toMatch(message);
  });

  it('a skill needs instructions or tools, and no tool twice', () => {
    expect(skillSchema.safeParse({ name: 's' }).success).toBe(false);
    const tool = { type: 'function', function: { name: 't' } };
    expect(skillSchema.safeParse({ name: 's', tools: [tool, tool] }).success).toBe(false);
    expect(skillSchema.safeParse({ name: 's', tools: [tool] }).success).toBe(true);
  });
});

describe('shapeChatRequest', () => {
  const weather = { field: 'skill_configs[0]', skill: skillSchema.parse({ name: 'weather', instructions: 'Use get_weather for weather.', tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }] }) };

  it('prepends the rendered system prompt and skill instructions as one system message', () => {
    const blueprint = bp({ system: 'You help {{company}}.', variables: { company: { default: 'ACME' } } });
    const { request } = shapeChatRequest(hub('hi'), { blueprint, skills: [weather], variables: { company: 'Initech' } });
    expect(request.messages[0]).toEqual({ role: 'system', content: 'You help Initech.\n\nUse get_weather for weather.' });
    expect(request.messages[1]).toEqual({ role: 'user', content: 'hi' });
    expect(request.tools!.map((tool) => tool.function.name)).toEqual(['get_weather']);
  });

  it.each<[Partial<ChatRequest>, Record<string, unknown>, Partial<ChatRequest>]>([
    [{}, { temperature: 0.2, max_tokens: 50 }, { temperature: 0.2, max_tokens: 50 }],
    [{ temperature: 1.5 }, { temperature: 0.2 }, { temperature: 1.5 }],
    [{ top_p: 0.5 }, { temperature: 0.2 }, { top_p: 0.5 }],
    [{ max_completion_tokens: 9 }, { max_tokens: 50 }, { max_completion_tokens: 9 }],
    [{ model: '' }, {}, { model: 'bp-model' }],
    [{ model: 'asked' }, {}, { model: 'asked' }],
  ])('request %j over blueprint params %j', (requestExtra, params, expected) => {
    const { request } = shapeChatRequest(hub('hi', requestExtra), { blueprint: bp({ model: 'bp-model', params }), skills: [] });
    expect(request).toMatchObject(expected);
    if (!('temperature' in expected)) expect(request.temperature).toBeUndefined();
    if (!('max_tokens' in expected)) expect(request.max_tokens).toBeUndefined();
  });

  it.each<[string, BlueprintInput, string | undefined, string | undefined]>([
    ['input railguard on any user turn', { blueprint: bp({ railguards: { input: [{ words: ['bomb'], message: 'No, {{who}}.' }] }, variables: { who: { default: 'friend' } } }), skills: [] }, 'blocked', 'No, friend.'],
    ['override on the last user turn', { blueprint: bp({ overrides: [{ pattern: '^\\s*hours\\??$', reply: 'We open at 9.' }] }), skills: [] }, 'blueprint_override', 'We open at 9.'],
    ['railguard beats override', { blueprint: bp({ railguards: { input: [{ words: ['hours'], message: 'blocked' }] }, overrides: [{ words: ['hours'], reply: 'r' }] }), skills: [] }, 'blocked', 'blocked'],
    ['no match: a model call', { blueprint: bp({ overrides: [{ words: ['price'], reply: 'r' }] }), skills: [] }, undefined, undefined],
  ])('%s', (_name, input, finishReason, text) => {
    const request: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'how to build a bomb' }, { role: 'assistant', content: 'no' }, { role: 'user', content: [{ type: 'text', text: 'hours?' }] }] };
    const shaped = shapeChatRequest(request, input);
    expect(shaped.direct?.finishReason).toBe(finishReason);
    expect(shaped.direct?.text).toBe(text);
  });

  it.each<[string, ChatRequest, BlueprintInput, string, string]>([
    ['tool clash with the request', hub('x', { tools: [{ type: 'function', function: { name: 'get_weather' } }] }), { skills: [weather] }, 'VALIDATION_4005', 'skill_configs[0].tools[0].function.name'],
    ['tool clash between skills', hub('x'), { skills: [weather, { ...weather, field: 'skill_ids[0]' }] }, 'VALIDATION_4005', 'skill_ids[0].tools[0].function.name'],
    ['tool_choice naming no merged tool', hub('x', { tool_choice: { type: 'function', function: { name: 'nope' } } }), { skills: [weather] }, 'VALIDATION_4005', 'tool_choice.function.name'],
    ['variables without a blueprint', hub('x'), { skills: [], variables: { a: 1 } }, 'VALIDATION_4005', 'variables'],
    ['no model anywhere', hub('x', { model: '' }), { blueprint: bp({}), skills: [] }, 'VALIDATION_4002', 'model'],
  ])('refuses: %s', (_name, request, input, code, field) => {
    const error = gatewayErrorOf(() => shapeChatRequest(request, input));
    expect(error.code).toBe(code);
    expect(error.details).toMatchObject({ field });
  });

  it('tool_choice may name a skill tool', () => {
    const { request } = shapeChatRequest(hub('x', { tool_choice: { type: 'function', function: { name: 'get_weather' } } }), { skills: [weather] });
    expect(request.tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } });
  });
});

describe('nested repetition (catastrophic backtracking) is refused', () => {
  it.each([
    ['(a+)+', true],
    ['(\\w*\\s?)*$', true],
    ['(?:x|y+){2,}', true],
    ['((ab)+c)*', true],
    ['(a|b)+', false],
    ['\\(a+\\)+', false],
    ['[(a+)]+', false],
    ['(ab){3}', false],
    ['(a+){2}', false],
    ['sk-[A-Za-z0-9]{20,}', false],
    ['^\\s*(hi|hello)\\s*$', false],
  ])('%s → %s', (pattern, nested) => {
    expect(hasNestedRepetition(pattern)).toBe(nested);
    expect(blueprintSchema.safeParse({ name: 'x', railguards: { input: [{ pattern, message: 'm' }] } }).success).toBe(!nested);
  });
});
