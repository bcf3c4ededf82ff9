/** Path matching with `{param}` segments → route | 404 | 405. */
export interface RouteDefinition {
  method: string;
  path: string;
}

interface CompiledRoute<Route extends RouteDefinition> {
  definition: Route;
  segments: string[];
}

export type RouteMatch<Route extends RouteDefinition> =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'not_found' }
  | { kind: 'method_not_allowed'; allowed: string[] };

export class Router<Route extends RouteDefinition> {
  private readonly compiled: Array<CompiledRoute<Route>>;
  /**
   * Routes without parameters by "METHOD /normalised/path": the hot endpoints (chat, embeddings)
   * are found with one lookup instead of a split and a walk over every route per request. A
   * literal route has the most literal segments its length allows, so it wins any scan it is in.
   */
  private readonly literal = new Map<string, RouteMatch<Route>>();

  constructor(routes: readonly Route[]) {
    this.compiled = routes.map((definition) => ({ definition, segments: definition.path.split('/').filter(Boolean) }));
    for (const { definition, segments } of this.compiled) {
      if (segments.some((segment) => segment.startsWith('{'))) continue;
      const key = `${definition.method} /${segments.join('/')}`;
      if (!this.literal.has(key)) this.literal.set(key, { kind: 'found', route: definition, params: {} });
    }
  }

  match(method: string, pathname: string): RouteMatch<Route> {
    const found = this.literal.get(`${method} ${pathname}`);
    // A fresh params object per match: handlers may write into it.
    if (found !== undefined && found.kind === 'found') return { kind: 'found', route: found.route, params: {} };
    return this.scan(method, pathname);
  }

  private scan(method: string, pathname: string): RouteMatch<Route> {
    const parts = pathname.split('/').filter(Boolean);
    const allowed: string[] = [];
    // Literal segments beat parameters (so /files/upload is not taken for /files/{file_id}).
    let best: { route: CompiledRoute<Route>; params: Record<string, string>; literals: number } | undefined;
    for (const route of this.compiled) {
      const params = matchSegments(route.segments, parts);
      if (params === null) continue;
      if (route.definition.method !== method) {
        allowed.push(route.definition.method);
        continue;
      }
      const literals = route.segments.filter((segment) => !segment.startsWith('{')).length;
      if (best === undefined || literals > best.literals) best = { route, params, literals };
    }
    if (best !== undefined) return { kind: 'found', route: best.route.definition, params: best.params };
    if (allowed.length > 0) return { kind: 'method_not_allowed', allowed: [...new Set(allowed)] };
    return { kind: 'not_found' };
  }
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | null {
  if (pattern.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let index = 0; index < pattern.length; index += 1) {
    const expected = pattern[index]!;
    const actual = parts[index]!;
    if (expected.startsWith('{') && expected.endsWith('}')) {
      let value: string;
      try {
        value = decodeURIComponent(actual);
      } catch {
        return null;
      }
      // No resource id holds a NUL, and PostgreSQL text cannot (team mode, DESIGN §4): such a
      // path names nothing here, rather than failing the lookup in the database.
      if (value.includes('\0')) return null;
      params[expected.slice(1, -1)] = value;
    } else if (expected !== actual) return null;
  }
  return params;
}
