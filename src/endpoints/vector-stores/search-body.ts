import type { z } from 'zod';
import { MAX_RESULTS } from '../../vector-stores/search.js';
import { parseRequest } from '../validation/parse.js';
import { searchSchema } from './schemas.js';

export type SearchBody = z.output<typeof searchSchema>;

/**
 * The search body (spec "Search body"). The common shape — a query string, perhaps
 * max_num_results, rewrite_query and filters (checked later by parseFilter) — is accepted by a
 * hand check that costs far less than the schema's parse on every search; anything else
 * (ranking_options, a list of queries, an unknown name, any wrong value) goes through the schema,
 * which accepts or words the refusal exactly as before. Both paths yield the same object.
 */
export function parseSearchBody(body: unknown): SearchBody {
  return isPlainSearchBody(body) ? body : parseRequest(searchSchema, body);
}

function isPlainSearchBody(body: unknown): body is SearchBody {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
  let hasQuery = false;
  for (const name of Object.keys(body)) {
    const value = (body as Record<string, unknown>)[name];
    switch (name) {
      case 'query':
        if (typeof value !== 'string') return false;
        hasQuery = true;
        break;
      case 'max_num_results':
        if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_RESULTS) return false;
        break;
      case 'rewrite_query':
        if (typeof value !== 'boolean') return false;
        break;
      case 'filters':
        // z.unknown(): any value passes the schema; parseFilter validates it.
        break;
      default:
        return false;
    }
  }
  return hasQuery;
}
