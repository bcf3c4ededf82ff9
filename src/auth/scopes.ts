import { GatewayError } from '../errors/gateway-error.js';

/**
 * Spec "Authentication" §5: `*` passes everything; `family.*` passes any scope under that family;
 * other strings match exactly; an empty list is full access (legacy keys).
 */
export function scopeGrants(granted: readonly string[], required: string): boolean {
  if (granted.length === 0) return true;
  return granted.some((scope) => {
    if (scope === '*' || scope === required) return true;
    return scope.endsWith('.*') && required.startsWith(scope.slice(0, -1));
  });
}

/** Any of the alternatives (e.g. list batches accepts any inference scope). */
export function requireScope(granted: readonly string[], required: string | readonly string[]): void {
  const alternatives = typeof required === 'string' ? [required] : required;
  if (alternatives.some((scope) => scopeGrants(granted, scope))) return;
  throw new GatewayError('AUTH_1015', `This API key lacks the scope ${alternatives.join(' or ')}; create a key with it (igw keys create --scopes ${alternatives[0]}).`, {
    required_scope: alternatives[0],
  });
}

/** Scopes a user may put on a key (validated at `keys create`). */
export const KNOWN_SCOPES = [
  '*',
  'inference.*',
  'inference.chat',
  'inference.embeddings',
  'inference.images',
  'inference.audio',
  'inference.rerank',
  'inference.models',
  'kit.*',
  'kit.tools',
  'kit.mcp',
  'kit.documents',
  'kit.knowledge.read',
  'kit.knowledge.write',
] as const;

/** "Any inference scope" (spec: list/get/cancel batches); files and batches accept these. */
export const ANY_INFERENCE_SCOPE: readonly string[] = KNOWN_SCOPES.filter((scope) => scope.startsWith('inference.') && scope !== 'inference.*');
