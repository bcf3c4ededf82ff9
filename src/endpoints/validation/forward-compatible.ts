import type { z } from 'zod';
import { fieldPath, type Issue } from './zod-issues.js';

/**
 * Forward compatibility (DESIGN §5, ARCHITECTURE principle 6), shared by every inference surface.
 *
 * The request schemas stay `.strict()`: they declare every field igw knows (all that the
 * official SDK types declare). This parse treats an unknown key as "not ours" instead of an
 * error: it removes the key from a copy of the body, remembers its path, and validates again,
 * so known fields keep their strict checks (a bad value is still refused by name) while fields
 * the real APIs added after this gateway was built get through. With `strict` (config
 * `server.strict_params: true`) nothing is removed and the strict schema refuses the name.
 *
 * How a surface uses it:
 *   const parsed = parseForwardCompatible(schema, call.body, call.app.config.server.strict_params);
 *   if (!parsed.success) throw <the surface's refusal built from parsed.issues[0]>;
 *   - native pass-through (the upstream speaks the surface's own wire): forward `call.body`
 *     (unknown fields untouched; the upstream judges them), not `parsed.data`;
 *   - translating (through the hub): use `parsed.data` and report `parsed.unknownFields`
 *     together with the surface's known-but-unhonoured fields through `IgnoredParams`
 *     (endpoints/shared/ignored-params.ts: `igw-ignored-params` header and request log).
 *     A field whose loss would silently change the answer is refused by name instead.
 * `parseRequest` (parse.ts, gateway wording) and `parseMessagesBody` (Messages wording) wrap it.
 *
 * Cost: a body without unknown keys is parsed once, as before; each round that finds unknown
 * keys clones the body once (the first time) and parses again, at most MAX_ROUNDS times.
 */
export type ForwardCompatibleParse<T> =
  | { success: true; data: T; unknownFields: string[] }
  | { success: false; issues: Issue[] };

/** Unknown keys inside union branches surface only once the outer ones are gone; a few rounds suffice. */
const MAX_ROUNDS = 6;

export function parseForwardCompatible<Schema extends z.ZodType>(schema: Schema, body: unknown, strict: boolean): ForwardCompatibleParse<z.output<Schema>> {
  let candidate = body;
  const unknownFields: string[] = [];
  for (let round = 0; ; round += 1) {
    const result = schema.safeParse(candidate);
    if (result.success) return { success: true, data: result.data, unknownFields };
    const issues = result.error.issues as unknown as Issue[];
    const removable = strict || round === MAX_ROUNDS ? [] : unknownKeys(issues);
    if (removable.length === 0) return { success: false, issues: realIssuesFirst(issues) };
    if (candidate === body) candidate = structuredClone(body);
    for (const { path, key } of removable) {
      const owner = objectAt(candidate, path);
      if (owner === undefined || !(key in owner)) continue;
      delete owner[key];
      unknownFields.push(fieldPath([...path, key]));
    }
  }
}

/**
 * `tools[3].eager_input_streaming` → `tools[].eager_input_streaming`: the names for the header
 * and the log, one per kind of field however many array elements carry it.
 */
export function genericFieldName(field: string): string {
  return field.replace(/\[\d+\]/g, '[]');
}

interface UnknownKey {
  path: PropertyKey[];
  key: string;
}

/**
 * Every unknown key the issues report, looking into union branches: a union whose value failed
 * only for unknown keys in one of its branches counts as that branch's unknown keys. Other
 * issues are left alone; they are reported once the unknown keys are gone.
 */
function unknownKeys(issues: readonly Issue[], prefix: PropertyKey[] = []): UnknownKey[] {
  const found: UnknownKey[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys ?? []) found.push({ path, key });
    } else if (issue.code === 'invalid_union' && issue.errors !== undefined) {
      // The first branch that fails only for unknown keys is the one the client meant.
      for (const branch of issue.errors) {
        if (branch.length > 0 && branch.every((inner) => onlyUnknownKeys(inner))) {
          found.push(...unknownKeys(branch, path));
          break;
        }
      }
    }
  }
  return found;
}

function onlyUnknownKeys(issue: Issue): boolean {
  if (issue.code === 'unrecognized_keys') return true;
  if (issue.code !== 'invalid_union' || issue.errors === undefined) return false;
  return issue.errors.some((branch) => branch.length > 0 && branch.every((inner) => onlyUnknownKeys(inner)));
}

/** Issues that are not about unknown keys come first, so the refusal names a real problem. */
function realIssuesFirst(issues: readonly Issue[]): Issue[] {
  return [...issues.filter((issue) => !onlyUnknownKeys(issue)), ...issues.filter((issue) => onlyUnknownKeys(issue))];
}

function objectAt(root: unknown, path: readonly PropertyKey[]): Record<string, unknown> | undefined {
  let current = root;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment as string];
  }
  return current !== null && typeof current === 'object' && !Array.isArray(current) ? (current as Record<string, unknown>) : undefined;
}
