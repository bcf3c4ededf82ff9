/**
 * What to do to make a vector store mirror a folder, as a pure function of both sides.
 *
 * Every store file that `igw kb sync` attaches carries the attributes `path` (relative, with
 * forward slashes) and `sha256` (of the bytes). The store is therefore the whole sync state: a
 * re-run, a run from another machine, or a run after a crash or Ctrl-C computes the same plan
 * from what is there, and only what differs is sent.
 */

export interface LocalFile {
  path: string;
  sha256: string;
  bytes: number;
}

export interface RemoteFile {
  /** The vector-store file id (= the file id). */
  id: string;
  path: string;
  sha256: string;
  status: string;
}

export type SyncAction =
  | { kind: 'upload'; file: LocalFile; /** store files to detach once the new one is attached */ replaces: RemoteFile[] }
  | { kind: 'rename'; remote: RemoteFile; to: LocalFile }
  | { kind: 'detach'; remote: RemoteFile };

export interface SyncPlan {
  actions: SyncAction[];
  unchanged: LocalFile[];
}

/** A store file counts as present unless its ingestion failed or was cancelled (those are redone). */
function usable(remote: RemoteFile): boolean {
  return remote.status !== 'failed' && remote.status !== 'cancelled';
}

export function planSync(local: readonly LocalFile[], remote: readonly RemoteFile[]): SyncPlan {
  const localByPath = new Map(local.map((file) => [file.path, file]));
  const remoteByPath = new Map<string, RemoteFile[]>();
  for (const file of remote) {
    const list = remoteByPath.get(file.path);
    if (list === undefined) remoteByPath.set(file.path, [file]);
    else list.push(file);
  }
  const actions: SyncAction[] = [];
  const unchanged: LocalFile[] = [];
  const claimed = new Set<RemoteFile>();
  const pending: LocalFile[] = [];

  // 1. Same path, same bytes: nothing to send. Extra copies at that path are detached below.
  for (const file of local) {
    const match = (remoteByPath.get(file.path) ?? []).find((candidate) => candidate.sha256 === file.sha256 && usable(candidate));
    if (match === undefined) pending.push(file);
    else {
      claimed.add(match);
      unchanged.push(file);
    }
  }

  // 2. Renames: a store file whose path no longer holds its bytes, and whose bytes now live at a
  //    new path, is re-labelled instead of uploaded again.
  const orphansBySha = new Map<string, RemoteFile[]>();
  for (const file of remote) {
    if (claimed.has(file) || !usable(file)) continue;
    if (localByPath.get(file.path)?.sha256 === file.sha256) continue;
    const list = orphansBySha.get(file.sha256);
    if (list === undefined) orphansBySha.set(file.sha256, [file]);
    else list.push(file);
  }
  const uploads: LocalFile[] = [];
  for (const file of pending) {
    const candidates = orphansBySha.get(file.sha256);
    // Prefer a store file whose old path is gone locally (a rename); one whose path now holds
    // other bytes (a copy, then an edit of the original) is re-labelled just as well.
    const gone = candidates?.findIndex((candidate) => !localByPath.has(candidate.path)) ?? -1;
    const index = gone === -1 ? 0 : gone;
    if (candidates !== undefined && candidates.length > 0) {
      const [remoteFile] = candidates.splice(index, 1);
      claimed.add(remoteFile!);
      actions.push({ kind: 'rename', remote: remoteFile!, to: file });
    } else uploads.push(file);
  }

  // 3. Changed or new files are uploaded; what sat at their path goes once the new one is in.
  for (const file of uploads) {
    const replaces = (remoteByPath.get(file.path) ?? []).filter((candidate) => !claimed.has(candidate));
    for (const old of replaces) claimed.add(old);
    actions.push({ kind: 'upload', file, replaces });
  }

  // 4. Everything else in the store (deleted locally, duplicates, failed ingestions) is detached.
  for (const file of remote) if (!claimed.has(file)) actions.push({ kind: 'detach', remote: file });

  return { actions, unchanged };
}
