import { describe, expect, it } from 'vitest';
import { KNOWN_SCOPES, requireScope, scopeGrants } from '../../../src/auth/scopes.js';
import { gatewayErrorOf } from '../../helpers/thrown.js';

describe('scopeGrants (spec "Authentication" §5)', () => {
  it.each<{ granted: string[]; required: string; expected: boolean }>([
    // `*` passes everything
    { granted: ['*'], required: 'inference.chat', expected: true },
    { granted: ['*'], required: 'kit.knowledge.write', expected: true },
    { granted: ['*'], required: 'inference.models', expected: true },
    // empty list = full access (legacy keys)
    { granted: [], required: 'inference.chat', expected: true },
    { granted: [], required: 'kit.knowledge.write', expected: true },
    // inference.* matches any inference.X, nothing outside the family
    { granted: ['inference.*'], required: 'inference.chat', expected: true },
    { granted: ['inference.*'], required: 'inference.embeddings', expected: true },
    { granted: ['inference.*'], required: 'inference.models', expected: true },
    { granted: ['inference.*'], required: 'kit.knowledge.read', expected: false },
    { granted: ['inference.*'], required: 'kit.tools', expected: false },
    { granted: ['inference.*'], required: 'inferencex.chat', expected: false },
    // kit.* covers nested kit scopes
    { granted: ['kit.*'], required: 'kit.knowledge.write', expected: true },
    { granted: ['kit.*'], required: 'kit.knowledge.read', expected: true },
    { granted: ['kit.*'], required: 'kit.mcp', expected: true },
    { granted: ['kit.*'], required: 'inference.chat', expected: false },
    // exact matching
    { granted: ['inference.chat'], required: 'inference.chat', expected: true },
    { granted: ['inference.chat'], required: 'inference.embeddings', expected: false },
    { granted: ['inference.chat'], required: 'inference.chatty', expected: false },
    { granted: ['kit.knowledge.read'], required: 'kit.knowledge.read', expected: true },
    { granted: ['kit.knowledge.read'], required: 'kit.knowledge.write', expected: false },
    { granted: ['kit.knowledge'], required: 'kit.knowledge.read', expected: false },
    // several granted scopes: any one suffices
    { granted: ['inference.embeddings', 'kit.knowledge.read'], required: 'kit.knowledge.read', expected: true },
    { granted: ['inference.embeddings', 'kit.knowledge.read'], required: 'inference.chat', expected: false },
    { granted: ['inference.embeddings', 'kit.*'], required: 'kit.documents', expected: true },
  ])('$granted grants $required → $expected', ({ granted, required, expected }) => {
    expect(scopeGrants(granted, required)).toBe(expected);
  });
});

describe('requireScope', () => {
  it.each<{ granted: string[]; required: string | string[] }>([
    { granted: ['*'], required: 'inference.chat' },
    { granted: [], required: 'kit.knowledge.write' },
    { granted: ['inference.*'], required: 'inference.rerank' },
    { granted: ['kit.*'], required: 'kit.knowledge.write' },
    { granted: ['inference.chat'], required: ['inference.embeddings', 'inference.chat'] },
    { granted: ['inference.models'], required: ['inference.chat', 'inference.embeddings', 'inference.models'] },
  ])('passes $granted for $required', ({ granted, required }) => {
    expect(() => requireScope(granted, required)).not.toThrow();
  });

  it.each<{ granted: string[]; required: string | string[]; named: string }>([
    { granted: ['inference.chat'], required: 'inference.embeddings', named: 'inference.embeddings' },
    { granted: ['inference.*'], required: 'kit.knowledge.read', named: 'kit.knowledge.read' },
    { granted: ['kit.knowledge.read'], required: 'kit.knowledge.write', named: 'kit.knowledge.write' },
    { granted: ['kit.*'], required: 'inference.chat', named: 'inference.chat' },
    // alternatives: the first is named
    { granted: ['kit.tools'], required: ['inference.chat', 'inference.embeddings'], named: 'inference.chat' },
  ])('refuses $granted for $required with AUTH_1015 naming $named', ({ granted, required, named }) => {
    const error = gatewayErrorOf(() => requireScope(granted, required));
    expect(error.code).toBe('AUTH_1015');
    expect(error.status).toBe(403);
    expect(error.retryable).toBe(false);
    expect(error.details).toEqual({ required_scope: named });
    expect(error.message).toContain(named);
  });

  it('KNOWN_SCOPES lists every scope of the spec table', () => {
    expect([...KNOWN_SCOPES].sort()).toEqual(
      [
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
      ].sort(),
    );
  });
});
