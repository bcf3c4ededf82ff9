import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { instanceFor } from '../../../../src/providers/local/json-schema-instance.js';

// ajv ships no format validators (ajv-formats is not a dependency); these are strict enough to
// catch a malformed value from the generator.
const ajv = new Ajv2020({
  strict: true,
  // Real-world schemas often omit `type` beside type-specific keywords; that is legal JSON Schema.
  strictTypes: false,
  allErrors: true,
  formats: {
    'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/,
    date: /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/,
    time: /^\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/,
    email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
    uri: /^[a-z][a-z0-9+.-]*:\/\/[^\s]+$/i,
    uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    hostname: /^[a-z0-9.-]+$/,
    ipv4: /^(\d{1,3}\.){3}\d{1,3}$/,
  },
});

const SEED = 'What is the weather in Paris today?';

const cases: Array<{ name: string; schema: Record<string, unknown> | boolean }> = [
  { name: 'empty schema', schema: {} },
  { name: 'boolean true schema', schema: true },
  {
    name: 'nested objects, optional properties',
    schema: {
      type: 'object',
      properties: {
        city: { type: 'string' },
        unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
        location: {
          type: 'object',
          properties: { lat: { type: 'number', minimum: -90, maximum: 90 }, lon: { type: 'number', minimum: -180, maximum: 180 }, label: { type: 'string' } },
          required: ['lat', 'lon'],
          additionalProperties: false,
        },
      },
      required: ['city'],
    },
  },
  {
    name: 'OpenAI strict structured output',
    schema: {
      type: 'object',
      properties: {
        steps: { type: 'array', items: { type: 'object', properties: { explanation: { type: 'string' }, output: { type: 'string' } }, required: ['explanation', 'output'], additionalProperties: false } },
        final_answer: { type: 'string' },
        confidence: { type: ['number', 'null'] },
      },
      required: ['steps', 'final_answer', 'confidence'],
      additionalProperties: false,
    },
  },
  {
    name: 'arrays with item counts',
    schema: {
      type: 'object',
      properties: {
        tags: { type: 'array', items: { type: 'string', maxLength: 8 }, minItems: 3, maxItems: 5 },
        none: { type: 'array', items: { type: 'integer' }, maxItems: 0 },
        matrix: { type: 'array', items: { type: 'array', items: { type: 'integer', minimum: 1 }, minItems: 2 }, minItems: 2 },
      },
    },
  },
  { name: 'unique items of strings', schema: { type: 'array', items: { type: 'string', maxLength: 6 }, minItems: 4, uniqueItems: true } },
  { name: 'unique items of integers', schema: { type: 'array', items: { type: 'integer', minimum: 10, maximum: 20 }, minItems: 5, uniqueItems: true } },
  { name: 'unique items of enum values', schema: { type: 'array', items: { enum: ['a', 'b', 'c'] }, minItems: 3, uniqueItems: true } },
  { name: 'tuple with prefixItems', schema: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }, { type: 'boolean' }], items: false, minItems: 3 } },
  { name: 'enums of mixed types', schema: { type: 'object', properties: { level: { enum: [3, 'high', null] }, flag: { const: 'fixed' } }, required: ['level', 'flag'] } },
  {
    name: '$defs references',
    schema: {
      type: 'object',
      properties: { billing: { $ref: '#/$defs/address' }, shipping: { $ref: '#/$defs/address' } },
      required: ['billing'],
      $defs: { address: { type: 'object', properties: { street: { type: 'string', minLength: 3 }, zip: { type: 'string', pattern: '^\\d{5}$' } }, required: ['street', 'zip'], additionalProperties: false } },
    },
  },
  {
    name: 'definitions (draft-07 style) reference',
    schema: { type: 'object', properties: { item: { $ref: '#/definitions/item' } }, definitions: { item: { type: 'object', properties: { qty: { type: 'integer', minimum: 1 } }, required: ['qty'] } } },
  },
  {
    name: 'recursive tree via $defs',
    schema: {
      $ref: '#/$defs/node',
      $defs: { node: { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } }, required: ['name', 'children'], additionalProperties: false } },
    },
  },
  {
    name: 'recursive linked list with required nullable next',
    schema: {
      type: 'object',
      properties: { value: { type: 'integer' }, next: { anyOf: [{ $ref: '#' }, { type: 'null' }] } },
      required: ['value', 'next'],
      additionalProperties: false,
    },
  },
  { name: 'anyOf picks a valid branch', schema: { anyOf: [{ type: 'string', maxLength: 4 }, { type: 'number' }] } },
  { name: 'anyOf with a null first branch', schema: { anyOf: [{ type: 'null' }, { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }] } },
  { name: 'oneOf of disjoint types', schema: { oneOf: [{ type: 'integer', minimum: 5 }, { type: 'string' }] } },
  {
    name: 'allOf merges branches and refs',
    schema: {
      allOf: [{ $ref: '#/$defs/base' }, { type: 'object', properties: { extra: { type: 'integer', maximum: -3 } }, required: ['extra'] }],
      $defs: { base: { type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'] } },
    },
  },
  {
    name: 'numeric bounds',
    schema: {
      type: 'object',
      properties: {
        positive: { type: 'number', exclusiveMinimum: 0 },
        negative: { type: 'integer', exclusiveMaximum: 0 },
        between: { type: 'integer', minimum: 3, maximum: 7 },
        openInterval: { type: 'number', exclusiveMinimum: 1, exclusiveMaximum: 2 },
        stepped: { type: 'integer', multipleOf: 7, minimum: 10 },
        halves: { type: 'number', multipleOf: 0.5, minimum: 1.2 },
        cents: { type: 'number', multipleOf: 0.01, minimum: 0.05, maximum: 0.5 },
        farAway: { type: 'number', minimum: 1e6 },
        below: { type: 'integer', maximum: -100 },
      },
      required: ['positive', 'negative', 'between', 'openInterval', 'stepped', 'halves', 'cents', 'farAway', 'below'],
    },
  },
  {
    name: 'string bounds',
    schema: {
      type: 'object',
      properties: { short: { type: 'string', maxLength: 5 }, long: { type: 'string', minLength: 80 }, exact: { type: 'string', minLength: 10, maxLength: 10 }, empty: { type: 'string', maxLength: 0 } },
      required: ['short', 'long', 'exact', 'empty'],
    },
  },
  {
    name: 'formats',
    schema: {
      type: 'object',
      properties: {
        when: { type: 'string', format: 'date-time' },
        day: { type: 'string', format: 'date' },
        mail: { type: 'string', format: 'email' },
        link: { type: 'string', format: 'uri' },
        id: { type: 'string', format: 'uuid' },
        host: { type: 'string', format: 'hostname' },
        ip: { type: 'string', format: 'ipv4' },
      },
      required: ['when', 'day', 'mail', 'link', 'id', 'host', 'ip'],
    },
  },
  {
    name: 'simple patterns',
    schema: {
      type: 'object',
      properties: {
        code: { type: 'string', pattern: '^[A-Z]{3}-\\d{4}$' },
        choice: { type: 'string', pattern: '^(foo|bar)_[a-z]+$' },
        phone: { type: 'string', pattern: '^\\+?[0-9]{7,15}$' },
        unanchored: { type: 'string', pattern: 'Paris' },
        hex: { type: 'string', pattern: '^#[0-9a-fA-F]{6}$' },
        notDigits: { type: 'string', pattern: '^[^0-9]+$', minLength: 3 },
        longRepeat: { type: 'string', pattern: '^[a-z]+$', minLength: 12 },
      },
      required: ['code', 'choice', 'phone', 'unanchored', 'hex', 'notDigits', 'longRepeat'],
    },
  },
  { name: 'nullable string type list', schema: { type: ['string', 'null'], minLength: 2 } },
  { name: 'min properties filled from additionalProperties', schema: { type: 'object', additionalProperties: { type: 'integer' }, minProperties: 2 } },
  { name: 'max properties keeps required first', schema: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' } }, required: ['c'], maxProperties: 1 } },
  { name: 'type inferred from keywords', schema: { properties: { n: { minimum: 4 }, list: { items: { type: 'boolean' } } }, required: ['n', 'list'] } },
  { name: 'contains', schema: { type: 'array', items: { type: 'integer' }, contains: { minimum: 42 } } },
];

describe('instanceFor', () => {
  it.each(cases)('$name → a valid instance', ({ schema }) => {
    const validate = ajv.compile(schema);
    const value = instanceFor(schema, SEED);
    const valid = validate(value);
    expect({ value, errors: validate.errors }).toEqual({ value, errors: null });
    expect(valid).toBe(true);
  });

  it.each(cases)('$name → deterministic', ({ schema }) => {
    expect(instanceFor(schema, SEED)).toEqual(instanceFor(structuredClone(schema), SEED));
  });

  it('returns the seed text for an empty schema', () => {
    expect(instanceFor({}, SEED)).toBe(SEED);
  });

  it('fills optional properties too, with the seed text in strings', () => {
    expect(instanceFor({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, required: ['a'] }, 'hi')).toEqual({ a: 'hi', b: 'hi' });
  });

  it('truncates and pads the seed text to the length bounds', () => {
    expect(instanceFor({ type: 'string', maxLength: 4 }, 'abcdefgh')).toBe('abcd');
    expect(instanceFor({ type: 'string', minLength: 7 }, 'abc')).toBe('abc abc');
    expect(instanceFor({ type: 'string', minLength: 3 }, '')).toBe('xxx');
  });

  it('falls back to the seed text when a pattern is beyond the example generator', () => {
    const schema = { type: 'string', pattern: '^(?=.*\\d)\\w+$' };
    expect(instanceFor(schema, 'plain text')).toBe('plain text');
  });

  it('uses a nullable type’s non-null member', () => {
    expect(instanceFor({ type: ['null', 'integer'], minimum: 2 }, SEED)).toBe(2);
  });
});
