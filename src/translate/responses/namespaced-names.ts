import { createHash } from 'node:crypto';

/**
 * Namespace tools (OpenAI's `{type: "namespace", name, tools}`) have no chat form: each of their
 * functions is offered to a chat model under one flat name, and a call of that name goes back to
 * the client as a `function_call` item with `name` and `namespace` apart. The flat name is
 * `namespace__name`, the same for the offer and for the client's earlier calls sent back in
 * `input`, so a conversation keeps matching. Chat function names allow at most 64 characters of
 * [A-Za-z0-9_-]: a longer flat name keeps its start and ends with a short hash of the whole.
 */

export interface NamespacedName {
  namespace: string;
  name: string;
}

const SEPARATOR = '__';
const MAX_LENGTH = 64;

export function flatFunctionName(namespace: string, name: string): string {
  const flat = `${namespace}${SEPARATOR}${name}`;
  if (flat.length <= MAX_LENGTH) return flat;
  const hash = createHash('sha256').update(flat).digest('hex').slice(0, 8);
  return `${flat.slice(0, MAX_LENGTH - hash.length - 1)}_${hash}`;
}
