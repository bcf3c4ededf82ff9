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
  return JSON.parse(stored) as string;
}

/** A string map (e.g. batch metadata) kept as one encoded string inside a jsonb document. */
export function encodeStringMap(value: Record<string, string> | null): string | null {
  return value === null ? null : JSON.stringify(value);
}

export function decodeStringMap(stored: string | null): Record<string, string> | null {
  return stored === null ? null : (JSON.parse(stored) as Record<string, string>);
}
