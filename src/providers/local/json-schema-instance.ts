import { createHash } from 'node:crypto';
import { exampleForPattern } from './pattern-string.js';

/**
 * Generates a value that validates against a JSON Schema (the draft 2020-12 subset OpenAI
 * structured outputs and function parameters use), so `local-echo` can answer tool calls and
 * json_schema requests with something a client's validator accepts. Deterministic: the same
 * schema and seed text always give the same value. Strings carry the seed text so the echo
 * stays visible inside structured output.
 */

type Schema = Record<string, unknown>;

interface Frame {
  /** Set once a $ref re-enters itself: from then on only what validation demands is generated. */
  readonly minimal: boolean;
  /** Distinguishes siblings of a `uniqueItems` array so they differ. */
  readonly variant: number;
  readonly depth: number;
  readonly refs: readonly string[];
}

/** Past this nesting a schema that demands infinite depth gets `null` instead of a hang. */
const MAX_DEPTH = 48;
/** A fixed date so formatted values are deterministic. */
const BASE_DATE_MS = Date.UTC(2024, 0, 1);

export function instanceFor(schema: unknown, seedText: string): unknown {
  return new InstanceGenerator(schema, seedText).generate(schema, { minimal: false, variant: 0, depth: 0, refs: [] });
}

class InstanceGenerator {
  constructor(
    private readonly root: unknown,
    private readonly seed: string,
  ) {}

  generate(schema: unknown, frame: Frame): unknown {
    if (frame.depth > MAX_DEPTH || schema === false) return null;
    if (!isSchemaObject(schema)) return this.string({}, frame);

    const resolved = this.dereference(schema, frame);
    let current = resolved.schema;
    frame = resolved.frame;

    if (Array.isArray(current.allOf)) {
      const { allOf, ...rest } = current;
      current = (allOf as unknown[]).reduce<Schema>((merged, branch) => {
        const branchResolved = this.dereference(isSchemaObject(branch) ? branch : {}, frame);
        frame = branchResolved.frame;
        return mergeSchemas(merged, branchResolved.schema);
      }, rest);
      return this.generate(current, { ...frame, depth: frame.depth + 1 });
    }
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      const branches = current[keyword];
      if (Array.isArray(branches) && branches.length > 0) {
        const { [keyword]: _branches, ...rest } = current;
        const branch = this.chooseBranch(branches, frame);
        const branchResolved = this.dereference(isSchemaObject(branch) ? branch : {}, frame);
        return this.generate(mergeSchemas(rest, branchResolved.schema), { ...branchResolved.frame, depth: frame.depth + 1 });
      }
    }

    if ('const' in current) return structuredClone(current.const);
    if (Array.isArray(current.enum) && current.enum.length > 0) {
      return structuredClone(current.enum[frame.variant % current.enum.length]);
    }

    switch (chooseType(current, frame)) {
      case 'object':
        return this.object(current, frame);
      case 'array':
        return this.array(current, frame);
      case 'integer':
        return pickNumber(current, true, frame.variant);
      case 'number':
        return pickNumber(current, false, frame.variant);
      case 'boolean':
        return frame.variant % 2 === 0;
      case 'null':
        return null;
      default:
        return this.string(current, frame);
    }
  }

  /** Follows `$ref` chains (siblings of `$ref` are merged over the target, as 2020-12 allows). */
  private dereference(schema: Schema, frame: Frame): { schema: Schema; frame: Frame } {
    let current = schema;
    for (let hops = 0; typeof current.$ref === 'string' && hops < MAX_DEPTH; hops++) {
      const ref = current.$ref;
      const { $ref: _ref, ...siblings } = current;
      const target = resolvePointer(this.root, ref);
      const recursing = frame.refs.includes(ref);
      frame = { ...frame, minimal: frame.minimal || recursing, refs: [...frame.refs, ref] };
      current = isSchemaObject(target) ? mergeSchemas(target, siblings) : siblings;
    }
    return { schema: current, frame };
  }

  private chooseBranch(branches: unknown[], frame: Frame): unknown {
    // Normally the first branch that is not plain `null` (more useful output); inside a
    // recursion, the branch most likely to end it: `null`, then one without a $ref.
    if (frame.minimal) {
      return (
        branches.find((branch) => isSchemaObject(branch) && branch.type === 'null') ??
        branches.find((branch) => isSchemaObject(branch) && branch.$ref === undefined) ??
        branches[0]
      );
    }
    return branches.find((branch) => !(isSchemaObject(branch) && branch.type === 'null')) ?? branches[0];
  }

  private object(schema: Schema, frame: Frame): Record<string, unknown> {
    const properties = isSchemaObject(schema.properties) ? schema.properties : {};
    const required = Array.isArray(schema.required) ? schema.required.filter((key): key is string => typeof key === 'string') : [];
    const additional = schema.additionalProperties;
    const extraSchema = additional === undefined || additional === false ? true : additional;

    // Every declared property is filled (a fuller example), required ones first when
    // maxProperties forces a choice; inside a recursion only the required ones.
    const optional = Object.keys(properties).filter((key) => !required.includes(key));
    let keys = frame.minimal ? [...required] : [...required, ...optional];
    if (typeof schema.maxProperties === 'number') keys = keys.slice(0, Math.max(schema.maxProperties, required.length));
    const order = frame.minimal ? keys : Object.keys(properties).filter((key) => keys.includes(key)).concat(keys.filter((key) => !(key in properties)));

    const child: Frame = { ...frame, depth: frame.depth + 1 };
    const result: Record<string, unknown> = {};
    for (const key of order) {
      result[key] = this.generate(key in properties ? properties[key] : extraSchema, child);
    }
    const minProperties = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
    for (let extra = 1; Object.keys(result).length < minProperties && additional !== false; extra++) {
      const key = `property_${extra}`;
      if (!(key in result)) result[key] = this.generate(extraSchema, child);
    }
    return result;
  }

  private array(schema: Schema, frame: Frame): unknown[] {
    // 2020-12 tuples use prefixItems; draft-07 tuples use an items array plus additionalItems.
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : [];
    const rest = Array.isArray(schema.items) ? schema.additionalItems : schema.items;
    const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
    const maxItems = typeof schema.maxItems === 'number' ? schema.maxItems : Infinity;

    let length = frame.minimal ? minItems : Math.max(minItems, prefix.length, 1);
    if (rest === false) length = Math.min(length, prefix.length);
    length = Math.min(length, maxItems);

    const result: unknown[] = [];
    for (let index = 0; index < length; index++) {
      let itemSchema: unknown = index < prefix.length ? prefix[index] : (rest ?? true);
      // `contains` is met by making the first free item satisfy it as well.
      if (index === prefix.length && isSchemaObject(schema.contains)) {
        itemSchema = { allOf: [isSchemaObject(itemSchema) ? itemSchema : {}, schema.contains] };
      }
      const variant = schema.uniqueItems === true ? frame.variant + index : frame.variant;
      result.push(this.generate(itemSchema, { ...frame, variant, depth: frame.depth + 1 }));
    }
    return result;
  }

  private string(schema: Schema, frame: Frame): string {
    const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
    const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
    if (typeof schema.format === 'string') {
      const formatted = formatValue(schema.format, this.seed, frame.variant);
      if (formatted !== undefined) return formatted;
    }
    const suffix = frame.variant > 0 ? ` ${frame.variant + 1}` : '';
    const fitted = fitLength(this.seed, suffix, minLength, maxLength);
    if (typeof schema.pattern !== 'string') return fitted;

    const pattern = safeRegExp(schema.pattern);
    if (pattern?.test(fitted)) return fitted;
    const example = exampleForPattern(schema.pattern, minLength, maxLength);
    if (example !== undefined) return example;
    // Best effort, as documented: a pattern we cannot satisfy gets the seed text.
    return fitted;
  }
}

function chooseType(schema: Schema, frame: Frame): string {
  const declared = Array.isArray(schema.type) ? schema.type.filter((type): type is string => typeof type === 'string') : typeof schema.type === 'string' ? [schema.type] : [];
  if (declared.length === 0) return inferType(schema);
  if (frame.minimal && declared.includes('null')) return 'null';
  return declared.find((type) => type !== 'null') ?? 'null';
}

function inferType(schema: Schema): string {
  const has = (...keys: string[]) => keys.some((key) => key in schema);
  if (has('properties', 'required', 'additionalProperties', 'minProperties', 'maxProperties', 'patternProperties')) return 'object';
  if (has('items', 'prefixItems', 'minItems', 'maxItems', 'contains', 'uniqueItems')) return 'array';
  if (has('minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf')) return 'number';
  return 'string';
}

interface Bounds {
  low: number;
  lowExclusive: boolean;
  high: number;
  highExclusive: boolean;
}

function readBounds(schema: Schema): Bounds {
  const bounds: Bounds = { low: -Infinity, lowExclusive: false, high: Infinity, highExclusive: false };
  if (typeof schema.minimum === 'number') bounds.low = schema.minimum;
  if (typeof schema.maximum === 'number') bounds.high = schema.maximum;
  // draft-04 spelled exclusivity as a boolean beside minimum/maximum.
  if (schema.exclusiveMinimum === true) bounds.lowExclusive = true;
  if (schema.exclusiveMaximum === true) bounds.highExclusive = true;
  if (typeof schema.exclusiveMinimum === 'number' && schema.exclusiveMinimum >= bounds.low) {
    bounds.low = schema.exclusiveMinimum;
    bounds.lowExclusive = true;
  }
  if (typeof schema.exclusiveMaximum === 'number' && schema.exclusiveMaximum <= bounds.high) {
    bounds.high = schema.exclusiveMaximum;
    bounds.highExclusive = true;
  }
  return bounds;
}

/** The first "nice" candidate (0, a bound, a multiple near a bound, the midpoint) that fits. */
function pickNumber(schema: Schema, integer: boolean, variant: number): number {
  const { low, lowExclusive, high, highExclusive } = readBounds(schema);
  const multipleOf = typeof schema.multipleOf === 'number' && schema.multipleOf > 0 ? schema.multipleOf : undefined;
  const fits = (value: number) =>
    Number.isFinite(value) &&
    (value > low || (!lowExclusive && value === low)) &&
    (value < high || (!highExclusive && value === high)) &&
    (!integer || Number.isInteger(value)) &&
    // The same test validators use (quotient is an integer), so float steps are checked honestly.
    (multipleOf === undefined || Number.isInteger(value / multipleOf));

  const step = multipleOf ?? 1;
  const multiplesFrom = (start: number, direction: 1 | -1) => {
    const first = direction === 1 ? Math.ceil(start / step) : Math.floor(start / step);
    const values: number[] = [];
    for (let offset = 0; offset < 4; offset++) {
      const raw = (first + direction * offset) * step;
      values.push(raw, Number(raw.toPrecision(12)));
    }
    return values;
  };
  const candidates: number[] = [0];
  if (Number.isFinite(low)) candidates.push(...(multipleOf || integer ? multiplesFrom(low, 1) : [low, low + 1]));
  if (Number.isFinite(high)) candidates.push(...(multipleOf || integer ? multiplesFrom(high, -1) : [high, high - 1]));
  if (Number.isFinite(low) && Number.isFinite(high)) {
    const middle = (low + high) / 2;
    candidates.push(middle, ...multiplesFrom(middle, 1), ...multiplesFrom(middle, -1));
  }
  const base = candidates.find(fits) ?? (Number.isFinite(low) ? low : Number.isFinite(high) ? high : 0);
  if (variant > 0) {
    for (const shifted of [base + variant * step, base - variant * step]) if (fits(shifted)) return shifted;
  }
  return base;
}

function formatValue(format: string, seed: string, variant: number): string | undefined {
  const date = new Date(BASE_DATE_MS + variant * 86_400_000).toISOString().replace('.000Z', 'Z');
  switch (format) {
    case 'date-time':
      return date;
    case 'date':
      return date.slice(0, 10);
    case 'time':
      return `${date.slice(11, 19)}Z`;
    case 'duration':
      return `P${variant + 1}D`;
    case 'email':
    case 'idn-email':
      return variant > 0 ? `user${variant + 1}@example.com` : 'user@example.com';
    case 'uri':
    case 'url':
    case 'iri':
    case 'uri-reference':
    case 'iri-reference':
      return variant > 0 ? `https://example.com/${variant + 1}` : 'https://example.com/';
    case 'hostname':
    case 'idn-hostname':
      return variant > 0 ? `host${variant + 1}.example.com` : 'example.com';
    case 'ipv4':
      return `192.0.2.${(variant % 254) + 1}`;
    case 'ipv6':
      return `2001:db8::${(variant % 0xfffe) + 1}`;
    case 'uuid':
      return uuidFrom(`${seed}\u0000${variant}`);
    default:
      return undefined;
  }
}

/** A version-4-shaped UUID derived from the text, so it is stable across calls. */
function uuidFrom(text: string): string {
  const hex = createHash('sha256').update(text).digest('hex');
  const variantNibble = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variantNibble}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Seed text cut to maxLength (keeping the suffix) or padded by repeating it to minLength. */
function fitLength(seed: string, suffix: string, minLength: number, maxLength: number): string {
  const seedPoints = Array.from(seed);
  const suffixPoints = Array.from(suffix);
  let points = [...seedPoints, ...suffixPoints];
  if (points.length > maxLength) {
    const keep = Math.max(0, maxLength - suffixPoints.length);
    points = [...seedPoints.slice(0, keep), ...suffixPoints].slice(0, maxLength);
  }
  if (points.length < minLength) {
    const filler = seedPoints.length > 0 ? [' ', ...seedPoints] : ['x'];
    while (points.length < minLength) points.push(...filler);
    points = points.slice(0, minLength);
  }
  return points.join('');
}

function safeRegExp(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
}

function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined; // remote refs are never fetched
  const pointer = ref.slice(1);
  if (pointer === '') return root;
  if (!pointer.startsWith('/')) return undefined;
  let node: unknown = root;
  for (const rawSegment of pointer.slice(1).split('/')) {
    const segment = decodeURIComponent(rawSegment).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isSchemaObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

const LOWER_BOUND_KEYS = new Set(['minimum', 'minLength', 'minItems', 'minProperties', 'minContains']);
const UPPER_BOUND_KEYS = new Set(['maximum', 'maxLength', 'maxItems', 'maxProperties', 'maxContains']);

/** Combines two schemas the way `allOf` constrains: both sets of keywords must hold. */
function mergeSchemas(first: Schema, second: Schema): Schema {
  const merged: Schema = { ...first };
  for (const [key, value] of Object.entries(second)) {
    const existing = merged[key];
    if (existing === undefined) {
      merged[key] = value;
    } else if (key === 'properties' && isSchemaObject(existing) && isSchemaObject(value)) {
      const properties: Schema = { ...existing };
      for (const [name, propertySchema] of Object.entries(value)) {
        properties[name] = name in existing ? { allOf: [existing[name], propertySchema] } : propertySchema;
      }
      merged[key] = properties;
    } else if (key === 'required' && Array.isArray(existing) && Array.isArray(value)) {
      merged[key] = [...new Set([...existing, ...value])];
    } else if (key === 'type') {
      merged[key] = intersectTypes(existing, value);
    } else if (LOWER_BOUND_KEYS.has(key) && typeof existing === 'number' && typeof value === 'number') {
      merged[key] = Math.max(existing, value);
    } else if (UPPER_BOUND_KEYS.has(key) && typeof existing === 'number' && typeof value === 'number') {
      merged[key] = Math.min(existing, value);
    } else if (key === 'enum' && Array.isArray(existing) && Array.isArray(value)) {
      const allowed = new Set(value.map((item) => JSON.stringify(item)));
      merged[key] = existing.filter((item) => allowed.has(JSON.stringify(item)));
    } else if (key === 'allOf' && Array.isArray(existing) && Array.isArray(value)) {
      merged[key] = [...existing, ...value];
    } else if ((key === 'items' || key === 'additionalProperties' || key === 'contains') && existing !== value) {
      merged[key] = existing === false || value === false ? false : { allOf: [existing, value] };
    }
    // Any other clash keeps the first schema's keyword: best effort, not a full intersection.
  }
  return merged;
}

function intersectTypes(first: unknown, second: unknown): unknown {
  const asList = (type: unknown) => (Array.isArray(type) ? type : [type]).filter((item): item is string => typeof item === 'string');
  const secondTypes = asList(second);
  const common = asList(first).flatMap((type) => {
    if (secondTypes.includes(type)) return [type];
    // integer is a subset of number, whichever side names it
    if ((type === 'number' && secondTypes.includes('integer')) || (type === 'integer' && secondTypes.includes('number'))) return ['integer'];
    return [];
  });
  return common.length === 0 ? first : common.length === 1 ? common[0] : common;
}

function isSchemaObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
