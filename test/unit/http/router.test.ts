import { describe, expect, it } from 'vitest';
import { Router, type RouteDefinition } from '../../../src/http/router.js';

interface TestRoute extends RouteDefinition {
  name: string;
}

const routes: TestRoute[] = [
  { method: 'POST', path: '/v1/chat/completions', name: 'chat' },
  { method: 'GET', path: '/v1/models', name: 'models' },
  { method: 'GET', path: '/v1/models/{model}', name: 'model' },
  { method: 'POST', path: '/v1/files', name: 'upload' },
  { method: 'GET', path: '/v1/files', name: 'list-files' },
  { method: 'GET', path: '/v1/files/{file_id}', name: 'get-file' },
  { method: 'DELETE', path: '/v1/files/{file_id}', name: 'delete-file' },
  { method: 'GET', path: '/v1/files/{file_id}/content', name: 'file-content' },
  { method: 'POST', path: '/v1/files/upload', name: 'literal-upload' },
  { method: 'GET', path: '/v1/vector_stores/{id}/files/{file_id}', name: 'store-file' },
  { method: 'POST', path: '/v1/vector_stores/{id}/search', name: 'search' },
  { method: 'POST', path: '/v1/batches/{batch_id}/cancel', name: 'cancel' },
];
const router = new Router(routes);

describe('Router.match', () => {
  it.each<{ method: string; path: string; name: string; params: Record<string, string> }>([
    { method: 'POST', path: '/v1/chat/completions', name: 'chat', params: {} },
    { method: 'GET', path: '/v1/models', name: 'models', params: {} },
    { method: 'GET', path: '/v1/models/', name: 'models', params: {} },
    { method: 'GET', path: '/v1/models/gpt-4o-mini', name: 'model', params: { model: 'gpt-4o-mini' } },
    { method: 'GET', path: '/v1/models/gpt-4o-mini:eco', name: 'model', params: { model: 'gpt-4o-mini:eco' } },
    { method: 'GET', path: '/v1/models/org%2Fmodel', name: 'model', params: { model: 'org/model' } },
    { method: 'GET', path: '/v1/files/file-abc', name: 'get-file', params: { file_id: 'file-abc' } },
    { method: 'DELETE', path: '/v1/files/file-abc', name: 'delete-file', params: { file_id: 'file-abc' } },
    { method: 'GET', path: '/v1/files/file-abc/content', name: 'file-content', params: { file_id: 'file-abc' } },
    { method: 'GET', path: '/v1/vector_stores/vs_1/files/file-2', name: 'store-file', params: { id: 'vs_1', file_id: 'file-2' } },
    { method: 'POST', path: '/v1/vector_stores/vs_1/search', name: 'search', params: { id: 'vs_1' } },
    { method: 'POST', path: '/v1/batches/batch_1/cancel', name: 'cancel', params: { batch_id: 'batch_1' } },
    { method: 'POST', path: '//v1//chat//completions', name: 'chat', params: {} },
    // literal beats parameter
    { method: 'POST', path: '/v1/files/upload', name: 'literal-upload', params: {} },
    // the literal does not shadow other methods on the parameter route
    { method: 'GET', path: '/v1/files/upload', name: 'get-file', params: { file_id: 'upload' } },
  ])('$method $path → $name $params', ({ method, path, name, params }) => {
    const match = router.match(method, path);
    expect(match.kind).toBe('found');
    if (match.kind !== 'found') return;
    expect(match.route.name).toBe(name);
    expect(match.params).toEqual(params);
  });

  it('literal beats parameter whatever the declaration order', () => {
    const reversed = new Router<TestRoute>([
      { method: 'GET', path: '/a/{x}/c', name: 'param-first' },
      { method: 'GET', path: '/a/b/c', name: 'literal' },
      { method: 'GET', path: '/a/{x}/{y}', name: 'two-params' },
    ]);
    expect(reversed.match('GET', '/a/b/c')).toMatchObject({ kind: 'found', route: { name: 'literal' } });
    expect(reversed.match('GET', '/a/z/c')).toMatchObject({ kind: 'found', route: { name: 'param-first' }, params: { x: 'z' } });
    expect(reversed.match('GET', '/a/z/q')).toMatchObject({ kind: 'found', route: { name: 'two-params' }, params: { x: 'z', y: 'q' } });
  });

  it.each<{ method: string; path: string }>([
    { method: 'GET', path: '/' },
    { method: 'GET', path: '/v1' },
    { method: 'GET', path: '/v2/models' },
    { method: 'POST', path: '/v1/chat' },
    { method: 'POST', path: '/v1/chat/completions/extra' },
    { method: 'GET', path: '/v1/files/a/b/c' },
    { method: 'GET', path: '/V1/models' },
    // malformed percent-encoding in a parameter does not match
    { method: 'GET', path: '/v1/models/%E0%A4%A' },
    // nor does one that decodes to a NUL (no id has one; PostgreSQL text cannot hold it)
    { method: 'GET', path: '/v1/files/%00' },
    { method: 'GET', path: '/v1/files/file-%00abc' },
  ])('$method $path → not_found', ({ method, path }) => {
    expect(router.match(method, path)).toEqual({ kind: 'not_found' });
  });

  it.each<{ method: string; path: string; allowed: string[] }>([
    { method: 'GET', path: '/v1/chat/completions', allowed: ['POST'] },
    { method: 'DELETE', path: '/v1/models', allowed: ['GET'] },
    { method: 'PUT', path: '/v1/files', allowed: ['POST', 'GET'] },
    { method: 'POST', path: '/v1/files/file-abc', allowed: ['GET', 'DELETE'] },
    { method: 'PATCH', path: '/v1/files/upload', allowed: ['GET', 'DELETE', 'POST'] },
    { method: 'get', path: '/v1/models', allowed: ['GET'] },
  ])('$method $path → 405 allowing $allowed', ({ method, path, allowed }) => {
    const match = router.match(method, path);
    expect(match.kind).toBe('method_not_allowed');
    if (match.kind !== 'method_not_allowed') return;
    expect([...match.allowed].sort()).toEqual([...allowed].sort());
    expect(new Set(match.allowed).size).toBe(match.allowed.length);
  });
});
