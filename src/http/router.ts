/** Path matching with `{param}` segments → route | 404 | 405. */
export interface RouteDefinition {
  method: string;
  path: string;
}

interface CompiledRoute<Route extends RouteDefinition> {
  definition: Route;
  segments: string[];
  /** Per segment: the parameter's name for a `{name}` segment, else null (compared as is). */
  params: Array<string | null>;
  /** Segments not starting with `{`: the more, the more specific the route. */
  literals: number;
}

export type RouteMatch<Route extends RouteDefinition> =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'not_found' }
  | { kind: 'method_not_allowed'; allowed: string[] };

export class Router<Route extends RouteDefinition> {
  /**
   * Routes without parameters by "METHOD /normalised/path": the hot endpoints (chat, embeddings)
   * are found with one lookup instead of a split and a walk over every route per request. A
   * literal route has the most literal segments its length allows, so it wins any scan it is in.
   */
  private readonly literal = new Map<string, RouteMatch<Route>>();

  /** The compiled routes by segment count, in declaration order: a path is compared only with routes of its length. */
  private readonly byLength = new Map<number, Array<CompiledRoute<Route>>>();

  constructor(routes: readonly Route[]) {
    const compiled: Array<CompiledRoute<Route>> = routes.map((definition) => {
      const segments = definition.path.split('/').filter(Boolean);
      return {
        definition,
        segments,
        params: segments.map((segment) => (segment.startsWith('{') && segment.endsWith('}') ? segment.slice(1, -1) : null)),
        literals: segments.filter((segment) => !segment.startsWith('{')).length,
      };
    });
    for (const route of compiled) {
      const sameLength = this.byLength.get(route.segments.length);
      if (sameLength === undefined) this.byLength.set(route.segments.length, [route]);
      else sameLength.push(route);
      const { definition, segments } = route;
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

  /**
   * Every route of the path's length, in order; the params object is built for the chosen route
   * only (building one per candidate route, a filter per match and a walk over all ~100 routes
   * were 2% of the event loop's time per vector-store search, issue 16).
   */
  private scan(method: string, pathname: string): RouteMatch<Route> {
    const parts = pathname.split('/').filter(Boolean);
    const allowed: string[] = [];
    // Literal segments beat parameters (so /files/upload is not taken for /files/{file_id}).
    let best: CompiledRoute<Route> | undefined;
    for (const route of this.byLength.get(parts.length) ?? []) {
      if (!segmentsMatch(route, parts)) continue;
      if (route.definition.method !== method) {
        allowed.push(route.definition.method);
        continue;
      }
      if (best === undefined || route.literals > best.literals) best = route;
    }
    if (best !== undefined) return { kind: 'found', route: best.definition, params: paramsOf(best, parts) };
    if (allowed.length > 0) return { kind: 'method_not_allowed', allowed: [...new Set(allowed)] };
    return { kind: 'not_found' };
  }
}

/** Whether the path's parts (as many as the route's segments) fit the route: literals equal, each parameter a decodable value. */
function segmentsMatch(route: CompiledRoute<RouteDefinition>, parts: string[]): boolean {
  const { segments, params } = route;
  for (let index = 0; index < segments.length; index += 1) {
    if (params[index] === null && segments[index] !== parts[index]) return false;
  }
  for (let index = 0; index < segments.length; index += 1) {
    if (params[index] !== null && paramValue(parts[index]!) === null) return false;
  }
  return true;
}

function paramsOf(route: CompiledRoute<RouteDefinition>, parts: string[]): Record<string, string> {
  const values: Record<string, string> = {};
  route.params.forEach((name, index) => {
    if (name !== null) values[name] = paramValue(parts[index]!)!;
  });
  return values;
}

/**
 * A parameter segment's value, or null when it names nothing: malformed percent-encoding, or a
 * NUL — no resource id holds one, and PostgreSQL text cannot (team mode, DESIGN §4): such a path
 * names nothing here, rather than failing the lookup in the database.
 */
function paramValue(part: string): string | null {
  let value: string;
  try {
    value = decodeURIComponent(part);
  } catch {
    return null;
  }
  return value.includes('\0') ? null : value;
}
