/**
 * PostgreSQL's text and jsonb cannot hold U+0000, which JSON (and so a client) may send in any
 * string. Where such a string goes into a text or jsonb column, it is stored as its JSON encoding
 * (a string of printable characters: U+0000 becomes the six characters `\u0000`) and decoded on
 * the way out, so what the client sent comes back exactly. Columns of type json (records, the
 * request log) keep the JSON text as written and need none of this.
 */
export function encodeText(value: string): string {
  return JSON.stringify(value);
}

export function decodeText(stored: string): string {
  // Rows written before this encoding hold the string itself (never starting with a quote: ids).
  return stored.startsWith('"') ? (JSON.parse(stored) as string) : stored;
}

/** A string map (e.g. batch metadata) kept as one encoded string inside a jsonb document. */
export function encodeStringMap(value: Record<string, string> | null): string | null {
  return value === null ? null : JSON.stringify(value);
}

export function decodeStringMap(stored: unknown): Record<string, string> | null {
  // Rows written before this encoding hold the map itself.
  if (stored === null || stored === undefined) return null;
  return typeof stored === 'string' ? (JSON.parse(stored) as Record<string, string>) : (stored as Record<string, string>);
}
