import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { checkHost, corsHeaders, isLoopbackHost } from '../../../src/http/guards.js';
import { gatewayErrorOf } from '../../helpers/thrown.js';

const request = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

describe('isLoopbackHost', () => {
  it.each<[string, boolean]>([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['localhost', true],
    ['::1', true],
    ['[::1]', true],
    ['0.0.0.0', false],
    ['192.168.1.10', false],
    ['::', false],
    ['127.0.0.1.evil.com', false],
    ['localhost.evil.com', false],
    ['evil.com', false],
    ['', false],
  ])('%s → %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});

describe('checkHost (DNS rebinding guard)', () => {
  it.each<{ bound: string; host: string }>([
    { bound: '127.0.0.1', host: '127.0.0.1:8787' },
    { bound: '127.0.0.1', host: '127.0.0.1' },
    { bound: '127.0.0.1', host: 'localhost:8787' },
    { bound: '127.0.0.1', host: 'localhost' },
    { bound: '127.0.0.1', host: 'LocalHost:8787' },
    { bound: '127.0.0.1', host: 'localhost.:8787' },
    { bound: '127.0.0.1', host: '[::1]:80' },
    { bound: '127.0.0.1', host: '[::1]' },
    { bound: '127.0.0.1', host: '127.0.0.2:1234' },
    { bound: 'localhost', host: '127.0.0.1:8787' },
    { bound: '::1', host: '[::1]:8787' },
    // not bound to loopback: the guard does not apply
    { bound: '0.0.0.0', host: 'evil.com' },
    { bound: '192.168.1.10', host: 'gateway.lan:8787' },
  ])('bound to $bound accepts Host $host', ({ bound, host }) => {
    expect(() => checkHost(request({ host }), bound)).not.toThrow();
  });

  it.each<{ bound: string; host: string | undefined }>([
    { bound: '127.0.0.1', host: 'evil.com' },
    { bound: '127.0.0.1', host: 'evil.com:8787' },
    { bound: '127.0.0.1', host: '127.0.0.1.nip.io:8787' },
    { bound: '127.0.0.1', host: 'localhost.evil.com' },
    { bound: '127.0.0.1', host: '192.168.1.10:8787' },
    { bound: '127.0.0.1', host: '[::2]:80' },
    { bound: '127.0.0.1', host: '' },
    { bound: '127.0.0.1', host: undefined },
    { bound: 'localhost', host: 'attacker.example' },
    { bound: '::1', host: 'evil.com' },
  ])('bound to $bound refuses Host $host with AUTH_1040', ({ bound, host }) => {
    const error = gatewayErrorOf(() => checkHost(request(host === undefined ? {} : { host }), bound));
    expect(error.code).toBe('AUTH_1040');
    expect(error.status).toBe(403);
  });
});

describe('corsHeaders', () => {
  it('no Origin (not a browser cross-origin request) → no headers', () => {
    expect(corsHeaders(request({}), [])).toEqual({});
  });

  it.each<{ origin: string; allowed: string[] }>([
    { origin: 'http://localhost:3000', allowed: ['http://localhost:3000'] },
    { origin: 'https://app.example', allowed: ['http://localhost:3000', 'https://app.example'] },
    { origin: 'https://anything.example', allowed: ['*'] },
  ])('allows $origin with $allowed', ({ origin, allowed }) => {
    const headers = corsHeaders(request({ origin }), allowed);
    expect(headers['access-control-allow-origin']).toBe(origin);
    expect(headers['vary']).toBe('Origin');
    expect(headers['access-control-expose-headers']).toContain('retry-after');
    expect(headers['access-control-expose-headers']).toContain('x-ratelimit-remaining-requests');
  });

  it.each<{ origin: string; allowed: string[] }>([
    { origin: 'https://evil.example', allowed: [] },
    { origin: 'https://evil.example', allowed: ['https://app.example'] },
    { origin: 'http://app.example', allowed: ['https://app.example'] },
    { origin: 'https://app.example:8443', allowed: ['https://app.example'] },
    { origin: 'null', allowed: ['https://app.example'] },
  ])('refuses $origin with $allowed → AUTH_1041', ({ origin, allowed }) => {
    const error = gatewayErrorOf(() => corsHeaders(request({ origin }), allowed));
    expect(error.code).toBe('AUTH_1041');
    expect(error.status).toBe(403);
    expect(error.message).toContain(origin);
  });
});
