import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../errors/gateway-error.js';
import type { KeyRepositoryPort } from '../store/repositories.js';
import { digestsEqual, hashApiKey, isWellFormedKey } from './keys.js';

export interface Principal {
  keyId: string;
  account: string;
  scopes: string[];
  vaultAccess: boolean;
}

const BEARER = /^Bearer\s+(.+)$/i;

/** Bearer token or x-api-key (spec "Authentication" §1). */
export function extractApiKey(headers: IncomingHttpHeaders): string | undefined {
  const authorization = headers.authorization;
  if (typeof authorization === 'string') {
    const trimmed = authorization.trim();
    if (trimmed !== '') {
      const match = BEARER.exec(trimmed);
      return match === null ? trimmed : match[1]!.trim();
    }
  }
  const apiKey = headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey.trim() !== '') return apiKey.trim();
  return undefined;
}

/** AUTH_1007 without a key; AUTH_1008 for malformed, unknown, revoked or expired keys. */
export function authenticate(headers: IncomingHttpHeaders, keys: KeyRepositoryPort, nowMs: number): Principal {
  const presented = extractApiKey(headers);
  if (presented === undefined) throw new GatewayError('AUTH_1007');
  if (!isWellFormedKey(presented)) throw new GatewayError('AUTH_1008', 'Invalid API key: igw keys look like sk-svc- followed by 128 characters. Create one with `igw keys create`.');
  const hash = hashApiKey(presented);
  const record = keys.findByHash(hash);
  if (record === undefined || !digestsEqual(record.hash, hash)) throw new GatewayError('AUTH_1008');
  if (record.revoked_at !== null) throw new GatewayError('AUTH_1008', 'Invalid API key: this key was revoked or rotated. Create a new one with `igw keys create`.');
  if (record.expires_at !== null && record.expires_at * 1000 <= nowMs) {
    throw new GatewayError('AUTH_1008', 'Invalid API key: this key has expired. Create a new one with `igw keys create`.');
  }
  return { keyId: record.id, account: record.account, scopes: record.scopes, vaultAccess: record.vault_access };
}
