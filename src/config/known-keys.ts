import type { z } from 'zod';

/** The bits of zod 4's schema definitions needed to walk down to an object's keys. */
interface Definition {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  valueType?: z.ZodType;
  element?: z.ZodType;
  in?: z.ZodType;
}

function definition(schema: z.ZodType): Definition {
  return (schema as unknown as { _zod: { def: Definition } })._zod.def;
}

/** Looks through optional / default / nullable / pipe wrappers to the schema that holds keys. */
function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let depth = 0; depth < 10; depth += 1) {
    const def = definition(current);
    const inner = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
    if (inner === undefined) return current;
    current = inner;
  }
  return current;
}

/**
 * The keys an object of the config schema accepts at a JSON path (as zod reports it in an
 * unrecognized_keys issue): the source of "did you mean" for a misspelt config key.
 */
export function knownKeysAt(schema: z.ZodType, at: ReadonlyArray<PropertyKey>): string[] {
  let current = unwrap(schema);
  for (const segment of at) {
    const def = definition(current);
    if (def.type === 'object' && def.shape !== undefined && typeof segment === 'string' && def.shape[segment] !== undefined) current = unwrap(def.shape[segment]);
    else if (def.type === 'record' && def.valueType !== undefined) current = unwrap(def.valueType);
    else if (def.type === 'array' && def.element !== undefined) current = unwrap(def.element);
    else return [];
  }
  const def = definition(current);
  return def.type === 'object' && def.shape !== undefined ? Object.keys(def.shape) : [];
}
