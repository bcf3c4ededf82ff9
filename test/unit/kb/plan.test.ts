import { describe, expect, it } from 'vitest';
import { planSync, type LocalFile, type RemoteFile } from '../../../src/kb/plan.js';

const l = (path: string, sha256: string): LocalFile => ({ path, sha256, bytes: 1 });
const r = (id: string, path: string, sha256: string, status = 'completed'): RemoteFile => ({ id, path, sha256, status });

function summary(local: LocalFile[], remote: RemoteFile[]): string[] {
  const plan = planSync(local, remote);
  return [
    ...plan.unchanged.map((file) => `keep ${file.path}`),
    ...plan.actions.map((action) =>
      action.kind === 'upload'
        ? `upload ${action.file.path}${action.replaces.length > 0 ? ` replacing ${action.replaces.map((old) => old.id).join(',')}` : ''}`
        : action.kind === 'rename'
          ? `rename ${action.remote.id} ${action.remote.path} -> ${action.to.path}`
          : `detach ${action.remote.id} ${action.remote.path}`,
    ),
  ].sort();
}

describe('planSync', () => {
  it.each<{ name: string; local: LocalFile[]; remote: RemoteFile[]; expected: string[] }>([
    { name: 'empty store: upload all', local: [l('a', '1'), l('b', '2')], remote: [], expected: ['upload a', 'upload b'] },
    { name: 'nothing changed', local: [l('a', '1')], remote: [r('f1', 'a', '1')], expected: ['keep a'] },
    { name: 'edited: upload, replacing the old', local: [l('a', '2')], remote: [r('f1', 'a', '1')], expected: ['upload a replacing f1'] },
    { name: 'renamed: relabel, no upload', local: [l('b', '1')], remote: [r('f1', 'a', '1')], expected: ['rename f1 a -> b'] },
    { name: 'deleted: detach', local: [], remote: [r('f1', 'a', '1')], expected: ['detach f1 a'] },
    { name: 'copied: the copy is uploaded, the original kept', local: [l('a', '1'), l('b', '1')], remote: [r('f1', 'a', '1')], expected: ['keep a', 'upload b'] },
    { name: 'copied then original edited: relabel to the copy, upload the edit', local: [l('a', '2'), l('b', '1')], remote: [r('f1', 'a', '1')], expected: ['rename f1 a -> b', 'upload a'] },
    { name: 'failed ingestion is redone', local: [l('a', '1')], remote: [r('f1', 'a', '1', 'failed')], expected: ['upload a replacing f1'] },
    { name: 'duplicate at one path (crash between attach and detach): extra detached', local: [l('a', '2')], remote: [r('f1', 'a', '1'), r('f2', 'a', '2')], expected: ['detach f1 a', 'keep a'] },
    { name: 'swap of two files: both kept by relabelling', local: [l('a', '2'), l('b', '1')], remote: [r('f1', 'a', '1'), r('f2', 'b', '2')], expected: ['rename f1 a -> b', 'rename f2 b -> a'] },
  ])('$name', ({ local, remote, expected }) => {
    expect(summary(local, remote)).toEqual([...expected].sort());
  });
});
