import { GatewayError } from '../errors/gateway-error.js';

export interface ListQuery {
  limit: number;
  order: 'asc' | 'desc';
  after: string | null;
  before: string | null;
}

export interface ListPage<T> {
  object: 'list';
  data: T[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

/** limit 1–100 (default 20), order asc|desc (default desc), after / before cursors (spec "Vector stores"). */
export function parseListQuery(query: URLSearchParams): ListQuery {
  const rawLimit = query.get('limit');
  let limit = 20;
  if (rawLimit !== null) {
    limit = Number(rawLimit);
    if (!/^\d+$/.test(rawLimit) || limit < 1 || limit > 100) throw new GatewayError('VALIDATION_4005', 'limit must be an integer from 1 to 100.', { field: 'limit' });
  }
  const order = query.get('order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw new GatewayError('VALIDATION_4005', 'order must be "asc" or "desc".', { field: 'order' });
  return { limit, order, after: query.get('after'), before: query.get('before') };
}

/**
 * One page of items (given oldest first) in the requested order. `after` starts behind that id,
 * `before` stops in front of it; an unknown cursor is a 400 rather than a silent first page.
 */
export function paginate<T extends { id: string }, Wire extends { id: string }>(itemsOldestFirst: readonly T[], query: ListQuery, render: (item: T) => Wire): ListPage<Wire> {
  let items = query.order === 'asc' ? [...itemsOldestFirst] : [...itemsOldestFirst].reverse();
  if (query.after !== null) {
    const position = items.findIndex((item) => item.id === query.after);
    if (position === -1) throw new GatewayError('VALIDATION_4005', `after: no item with id "${query.after}" in this list.`, { field: 'after' });
    items = items.slice(position + 1);
  }
  let fromEnd = false;
  if (query.before !== null) {
    const position = items.findIndex((item) => item.id === query.before);
    if (position === -1) throw new GatewayError('VALIDATION_4005', `before: no item with id "${query.before}" in this list.`, { field: 'before' });
    items = items.slice(0, position);
    // A `before` page is the one right in front of the cursor (the last `limit` items before it).
    fromEnd = query.after === null;
  }
  const page = fromEnd ? items.slice(Math.max(0, items.length - query.limit)) : items.slice(0, query.limit);
  const data = page.map(render);
  return {
    object: 'list',
    data,
    first_id: data[0]?.id ?? null,
    last_id: data[data.length - 1]?.id ?? null,
    has_more: fromEnd ? items.length > page.length : items.length > query.limit,
  };
}
