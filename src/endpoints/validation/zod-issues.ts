/** `messages[0].content` style field path for details.field. */
export function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  let result = '';
  for (const segment of path) {
    if (typeof segment === 'number') result += `[${segment}]`;
    else result += result === '' ? String(segment) : `.${String(segment)}`;
  }
  return result;
}

/** A zod issue as the refusal builders read it (the fields they use). */
export type Issue = { code: string; path: PropertyKey[]; message: string; keys?: string[]; errors?: Issue[][] };

/**
 * The most specific issue: a union (string or items, string or blocks) reports a bad element as
 * one "invalid union" on the field; the branch that got furthest names the element itself.
 */
export function deepestIssue(issue: Issue, prefix: PropertyKey[] = []): Issue {
  const path = [...prefix, ...issue.path];
  if (issue.code !== 'invalid_union' || issue.errors === undefined || issue.errors.length === 0) return { ...issue, path };
  let best: Issue | undefined;
  for (const branch of issue.errors) {
    const first = branch[0];
    if (first === undefined) continue;
    const candidate = deepestIssue(first, path);
    if (best === undefined || candidate.path.length > best.path.length) best = candidate;
  }
  return best ?? { ...issue, path };
}

/** The value at an issue's path in the raw body (undefined when absent: a missing field). */
export function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment as string];
  }
  return current;
}
