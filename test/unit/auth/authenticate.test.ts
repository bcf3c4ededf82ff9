import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate, extractApiKey } from '../../../src/auth/authenticate.js';
import { displayKey, generateApiKey, hashApiKey } from '../../../src/auth/keys.js';
import { KeyRepository, type KeyRecord } from '../../../src/store/keys.js';
import { gatewayErrorOf } from '../../helpers/thrown.js';

const NOW_MS = Date.UTC(2026, 0, 15, 12, 0, 0);
const NOW_S = Math.floor(NOW_MS / 1000);

let dataDir: string;
let keys: KeyRepository;
const live = generateApiKey();
const scoped = generateApiKey();
const revoked = generateApiKey();
const expired = generateApiKey();
const expiresLater = generateApiKey();
const unknown = generateApiKey();

function record(id: string, key: string, change: Partial<KeyRecord> = {}): KeyRecord {
  return {
    id,
    name: id,
    hash: hashApiKey(key),
    display: displayKey(key),
    scopes: [],
    vault_access: false,
    account: 'default',
    created_at: NOW_S - 3600,
    expires_at: null,
    revoked_at: null,
    ...change,
  };
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'igw-unit-auth-'));
  keys = await KeyRepository.open(dataDir);
  await keys.insert(record('key_live', live));
  await keys.insert(record('key_scoped', scoped, { scopes: ['inference.chat'], vault_access: true, account: 'team' }));
  await keys.insert(record('key_revoked', revoked, { revoked_at: NOW_S - 60 }));
  await keys.insert(record('key_expired', expired, { expires_at: NOW_S - 1 }));
  await keys.insert(record('key_later', expiresLater, { expires_at: NOW_S + 60 }));
});

afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('extractApiKey', () => {
  it.each<{ name: string; headers: Record<string, string>; expected: string | undefined }>([
    { name: 'Bearer', headers: { authorization: 'Bearer abc' }, expected: 'abc' },
    { name: 'bearer lower case', headers: { authorization: 'bearer abc' }, expected: 'abc' },
    { name: 'Bearer with extra spaces', headers: { authorization: '  Bearer    abc  ' }, expected: 'abc' },
    { name: 'x-api-key', headers: { 'x-api-key': 'abc' }, expected: 'abc' },
    { name: 'x-api-key trimmed', headers: { 'x-api-key': ' abc ' }, expected: 'abc' },
    { name: 'authorization wins over x-api-key', headers: { authorization: 'Bearer one', 'x-api-key': 'two' }, expected: 'one' },
    { name: 'blank authorization falls back to x-api-key', headers: { authorization: '  ', 'x-api-key': 'two' }, expected: 'two' },
    { name: 'nothing', headers: {}, expected: undefined },
    { name: 'blank x-api-key', headers: { 'x-api-key': '' }, expected: undefined },
  ])('$name', ({ headers, expected }) => {
    expect(extractApiKey(headers)).toBe(expected);
  });
});

describe('authenticate', () => {
  it.each<{ name: string; headers: () => Record<string, string> }>([
    { name: 'Bearer', headers: () => ({ authorization: `Bearer ${live}` }) },
    { name: 'x-api-key', headers: () => ({ 'x-api-key': live }) },
  ])('accepts a live key via $name', ({ headers }) => {
    expect(authenticate(headers(), keys, NOW_MS)).toEqual({ keyId: 'key_live', account: 'default', scopes: [], vaultAccess: false });
  });

  it('returns scopes, account and vault access of the key', () => {
    expect(authenticate({ 'x-api-key': scoped }, keys, NOW_MS)).toEqual({ keyId: 'key_scoped', account: 'team', scopes: ['inference.chat'], vaultAccess: true });
  });

  it('accepts a key that expires later', () => {
    expect(authenticate({ authorization: `Bearer ${expiresLater}` }, keys, NOW_MS).keyId).toBe('key_later');
  });

  it.each<{ name: string; headers: () => Record<string, string>; code: string }>([
    { name: 'no header', headers: () => ({}), code: 'AUTH_1007' },
    { name: 'empty Bearer header', headers: () => ({ authorization: '' }), code: 'AUTH_1007' },
    { name: 'empty x-api-key', headers: () => ({ 'x-api-key': '   ' }), code: 'AUTH_1007' },
    { name: 'malformed (short)', headers: () => ({ authorization: 'Bearer sk-svc-short' }), code: 'AUTH_1008' },
    { name: 'malformed (bad prefix)', headers: () => ({ authorization: `Bearer sk-xyz-${live.slice(7)}` }), code: 'AUTH_1008' },
    { name: 'malformed (Basic scheme)', headers: () => ({ authorization: `Basic ${live}` }), code: 'AUTH_1008' },
    { name: 'unknown well-formed key', headers: () => ({ authorization: `Bearer ${unknown}` }), code: 'AUTH_1008' },
    { name: 'revoked key', headers: () => ({ 'x-api-key': revoked }), code: 'AUTH_1008' },
    { name: 'expired key', headers: () => ({ authorization: `Bearer ${expired}` }), code: 'AUTH_1008' },
    { name: 'live key with one character changed', headers: () => ({ authorization: `Bearer ${live.slice(0, -1)}${live.endsWith('x') ? 'y' : 'x'}` }), code: 'AUTH_1008' },
  ])('$name → $code (401)', ({ headers, code }) => {
    const error = gatewayErrorOf(() => authenticate(headers(), keys, NOW_MS));
    expect(error.code).toBe(code);
    expect(error.status).toBe(401);
    expect(error.retryable).toBe(false);
  });

  it('expires exactly at expires_at', () => {
    expect(authenticate({ 'x-api-key': expiresLater }, keys, (NOW_S + 59) * 1000).keyId).toBe('key_later');
    expect(gatewayErrorOf(() => authenticate({ 'x-api-key': expiresLater }, keys, (NOW_S + 60) * 1000)).code).toBe('AUTH_1008');
  });

  it('stops accepting a key as soon as it is revoked', async () => {
    const key = generateApiKey();
    await keys.insert(record('key_to_revoke', key));
    expect(authenticate({ 'x-api-key': key }, keys, NOW_MS).keyId).toBe('key_to_revoke');
    await keys.update('key_to_revoke', { revoked_at: NOW_S });
    expect(gatewayErrorOf(() => authenticate({ 'x-api-key': key }, keys, NOW_MS)).code).toBe('AUTH_1008');
  });

});
