import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { PathFilter } from './filter.js';
import { IngestionServerError, isGatewayFault } from './gateway-fault.js';
import { IngestionTracker } from './ingestion-tracker.js';
import { planSync, type LocalFile, type RemoteFile, type SyncAction } from './plan.js';
import type { KbRemote } from './remote.js';
import { scanFolder, sha256File } from './scan.js';

/** One line of `igw kb sync --json` (and what the plain and terminal views render). */
export type SyncEvent =
  | { type: 'scanned'; files: number; bytes: number }
  | { type: 'uploaded'; path: string; bytes: number; file_id: string; replaced: number }
  | { type: 'indexed'; path: string; file_id: string }
  | { type: 'renamed'; from: string; to: string; file_id: string }
  | { type: 'detached'; path: string; file_id: string }
  | { type: 'failed'; path: string; error: string }
  /** Not sent or not indexed because of the gateway (down, busy, server error): sent again later. */
  | { type: 'waiting'; path: string; error: string }
  /** The gateway could not take files: the folder is scanned again after this wait. */
  | { type: 'retrying'; in_ms: number }
  | { type: 'unchanged'; files: number }
  | { type: 'watching'; folder: string }
  | ({ type: 'summary' } & SyncTotals & { failures: Array<{ path: string; error: string }>; waiting_files: Array<{ path: string; error: string }>; seconds: number; interrupted: boolean });

export interface SyncTotals {
  scanned: number;
  uploaded: number;
  indexed: number;
  renamed: number;
  detached: number;
  unchanged: number;
  failed: number;
  /** Files held back by a gateway fault (not the file's own failure). */
  waiting: number;
  bytes_uploaded: number;
}

/** Uploads and attribute changes in flight at once. */
const CONCURRENCY = 4;

/**
 * Mirrors a folder into a vector store. The store's files (attributes `path` and `sha256`) are
 * the only state: each pass reads the folder, compares with the store's last known files and
 * sends the difference, so an interrupted run resumes by simply running again.
 */
export class FolderSync {
  readonly totals: SyncTotals = { scanned: 0, uploaded: 0, indexed: 0, renamed: 0, detached: 0, unchanged: 0, failed: 0, waiting: 0, bytes_uploaded: 0 };
  /** Files that failed for a reason of their own, by path; a later success at that path clears it. */
  readonly failures = new Map<string, string>();
  /** Files held back by a gateway fault, by path: sent again at the next full pass. */
  readonly waiting = new Map<string, string>();
  /** Gateway faults met so far (a pass that adds none got through). */
  gatewayFaults = 0;
  /** The store's sync files by id (a map: one upload costs the same at 10 files as at 100,000). */
  private remoteFiles = new Map<string, RemoteFile>();
  /** Local files by path, with the size and mtime their hash was taken at (re-hashed only when those change). */
  private readonly local = new Map<string, LocalFile & { mtimeMs: number }>();
  private stopping = false;
  private readonly indexing = new Set<Promise<void>>();
  /** File ids whose ingestion is being followed. */
  private readonly tracked = new Set<string>();
  private readonly tracker: IngestionTracker;

  constructor(
    private readonly remote: KbRemote,
    private readonly storeId: string,
    private readonly root: string,
    private readonly filter: PathFilter,
    private readonly emit: (event: SyncEvent) => void,
    /** Called on each gateway fault (watch mode schedules a rescan). */
    private readonly onGatewayFault: () => void = () => undefined,
  ) {
    this.tracker = new IngestionTracker(remote, storeId);
  }

  /** Ctrl-C: no new actions start; those in flight finish. */
  stop(): void {
    this.stopping = true;
  }

  get stopped(): boolean {
    return this.stopping;
  }

  /**
   * A full pass: scan everything, hash what is new or touched, apply the plan. Also the rescan
   * after a gateway fault: files that were waiting are planned again like any other.
   */
  async fullSync(): Promise<void> {
    this.remoteFiles = new Map((await this.remote.syncState(this.storeId)).map((file) => [file.id, file]));
    this.waiting.clear();
    this.totals.waiting = 0;
    const scanned = await scanFolder(this.root, this.filter);
    this.totals.scanned = scanned.length;
    this.emit({ type: 'scanned', files: scanned.length, bytes: scanned.reduce((sum, file) => sum + file.bytes, 0) });
    const seen = new Set(scanned.map((file) => file.path));
    for (const known of [...this.local.keys()]) if (!seen.has(known)) this.local.delete(known);
    await forEachLimited(scanned, CONCURRENCY, async (file) => {
      if (this.stopping) return;
      await this.hashInto(file.path, file.bytes, file.mtimeMs);
    });
    await this.apply(true);
  }

  /** A later pass over paths that changed (watch mode); everything else is taken as known. */
  async syncPaths(paths: Iterable<string>): Promise<void> {
    for (const relative of paths) {
      if (this.stopping) return;
      try {
        const info = await stat(path.join(this.root, relative));
        this.failures.delete(relative);
        if (info.isFile() && this.filter.file(relative)) await this.hashInto(relative, info.size, info.mtimeMs);
        else this.local.delete(relative);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        // A file, or a whole folder, that is gone.
        for (const known of [...this.local.keys()]) if (known === relative || known.startsWith(`${relative}/`)) this.local.delete(known);
        this.failures.delete(relative);
      }
    }
    await this.apply(false);
  }

  /** Waits for every attached file's ingestion to finish (or fail). */
  async settled(): Promise<void> {
    while (this.indexing.size > 0) await Promise.all([...this.indexing]);
  }

  private async hashInto(relative: string, bytes: number, mtimeMs: number): Promise<void> {
    const known = this.local.get(relative);
    if (known !== undefined && known.bytes === bytes && known.mtimeMs === mtimeMs) return;
    try {
      const sha256 = await sha256File(path.join(this.root, relative));
      this.local.set(relative, { path: relative, sha256, bytes, mtimeMs });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') this.local.delete(relative);
      else this.fail(relative, error);
    }
  }

  private async apply(reportUnchanged: boolean): Promise<void> {
    // A path that failed in this run is left as it is until it changes again (no retry loop in
    // watch mode); the next run retries it.
    const failed = (file: { path: string }) => this.failures.has(file.path);
    const plan = planSync(
      [...this.local.values()].filter((file) => !failed(file)),
      [...this.remoteFiles.values()].filter((file) => !failed(file)),
    );
    this.totals.unchanged = plan.unchanged.length;
    if (reportUnchanged) this.emit({ type: 'unchanged', files: plan.unchanged.length });
    // Sent before (e.g. just before the gateway went down) and still being indexed: follow it.
    const unchanged = new Set(plan.unchanged.map((file) => `${file.path}\u0000${file.sha256}`));
    for (const remote of this.remoteFiles.values()) {
      if (remote.status !== 'in_progress' || this.tracked.has(remote.id) || !unchanged.has(`${remote.path}\u0000${remote.sha256}`)) continue;
      this.trackIndexing(remote.path, remote.id, 'in_progress', undefined, undefined);
    }
    await forEachLimited(plan.actions, CONCURRENCY, async (action) => {
      if (this.stopping) return;
      await this.run(action);
    });
  }

  private async run(action: SyncAction): Promise<void> {
    switch (action.kind) {
      case 'rename': {
        try {
          await this.remote.setAttributes(this.storeId, action.remote.id, { path: action.to.path, sha256: action.to.sha256 });
          this.replaceRemote([action.remote], { ...action.remote, path: action.to.path });
          this.totals.renamed += 1;
          this.cleared(action.to.path);
          this.emit({ type: 'renamed', from: action.remote.path, to: action.to.path, file_id: action.remote.id });
        } catch (error) {
          this.fail(action.to.path, error);
        }
        return;
      }
      case 'upload': {
        const { file } = action;
        let attached;
        try {
          attached = await this.remote.uploadAndAttach(this.storeId, path.join(this.root, file.path), { path: file.path, sha256: file.sha256 });
        } catch (error) {
          this.fail(file.path, error);
          return;
        }
        // The new bytes are in: what sat at this path before goes now (never the other way round).
        for (const old of action.replaces) await this.remote.detach(this.storeId, old.id).catch(() => undefined);
        this.replaceRemote(action.replaces, { id: attached.id, path: file.path, sha256: file.sha256, status: attached.status });
        this.totals.uploaded += 1;
        this.totals.bytes_uploaded += file.bytes;
        this.cleared(file.path);
        this.emit({ type: 'uploaded', path: file.path, bytes: file.bytes, file_id: attached.id, replaced: action.replaces.length });
        this.trackIndexing(file.path, attached.id, attached.status, attached.last_error?.message, attached.last_error?.code);
        return;
      }
      case 'detach': {
        try {
          await this.remote.detach(this.storeId, action.remote.id);
          this.replaceRemote([action.remote], null);
          this.totals.detached += 1;
          this.emit({ type: 'detached', path: action.remote.path, file_id: action.remote.id });
        } catch (error) {
          this.fail(action.remote.path, error);
        }
        return;
      }
    }
  }

  private trackIndexing(relative: string, fileId: string, status: string, lastError: string | undefined, errorCode: string | undefined): void {
    const done = (finalStatus: string, message: string | undefined, code: string | undefined) => {
      const entry = this.remoteFiles.get(fileId);
      if (entry !== undefined) entry.status = finalStatus;
      if (finalStatus === 'completed') {
        this.totals.indexed += 1;
        this.cleared(relative);
        this.emit({ type: 'indexed', path: relative, file_id: fileId });
        return;
      }
      const text = `ingestion ${finalStatus}${message === undefined ? '' : `: ${message}`}`;
      // A server-side error (provider down) is not the file's: it is sent again later.
      this.fail(relative, finalStatus === 'failed' && code === 'server_error' ? new IngestionServerError(text) : new Error(text));
    };
    if (status !== 'in_progress') {
      done(status, lastError, errorCode);
      return;
    }
    this.tracked.add(fileId);
    const poll = this.tracker.follow(fileId).then(
      (file) => {
        // null: detached meanwhile (the file changed again), nothing to report for this version.
        if (file !== null) done(file.status, file.last_error?.message, file.last_error?.code);
      },
      (error: unknown) => this.fail(relative, error),
    );
    this.indexing.add(poll);
    void poll.finally(() => {
      this.indexing.delete(poll);
      this.tracked.delete(fileId);
    });
  }

  private replaceRemote(old: readonly RemoteFile[], next: RemoteFile | null): void {
    const ids = new Set(old.map((file) => file.id));
    for (const id of ids) this.remoteFiles.delete(id);
    if (next !== null) this.remoteFiles.set(next.id, next);
  }

  /** A step for this path went through: it is neither failed nor waiting any more. */
  private cleared(relative: string): void {
    this.failures.delete(relative);
    this.waiting.delete(relative);
    this.totals.failed = this.failures.size;
    this.totals.waiting = this.waiting.size;
  }

  private fail(relative: string, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    if (isGatewayFault(error)) {
      this.waiting.set(relative, message);
      this.totals.waiting = this.waiting.size;
      this.gatewayFaults += 1;
      this.emit({ type: 'waiting', path: relative, error: message });
      this.onGatewayFault();
      return;
    }
    this.failures.set(relative, message);
    this.totals.failed = this.failures.size;
    this.emit({ type: 'failed', path: relative, error: message });
  }
}

async function forEachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next]!;
      next += 1;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
