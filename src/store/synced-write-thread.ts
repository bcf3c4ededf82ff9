import { Worker } from 'node:worker_threads';

/** One file to create: written whole, fsynced, mode 0600, refused if it exists (`wx`). */
export interface NewFile {
  path: string;
  bytes: Uint8Array;
}

/**
 * The writer thread's code (CommonJS, evaluated: the same source runs from `src/` under vitest and
 * from `dist/`). A message is a batch of jobs; each job's files are created and written first, then
 * fsynced, so on ext4 the first fsync commits the journal for the whole batch and the others find
 * little left to do. A job answers `{ id }` or `{ id, error: { message, code } }`; a failed job's
 * files may exist (the caller removes what it named).
 */
const WRITER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
parentPort.on('message', (jobs) => {
  const opened = jobs.map(({ files }) => {
    const fds = [];
    try {
      for (const file of files) {
        const fd = fs.openSync(file.path, 'wx', 0o600);
        fds.push(fd);
        let written = 0;
        while (written < file.bytes.length) written += fs.writeSync(fd, file.bytes, written, file.bytes.length - written);
      }
      return { fds, error: null };
    } catch (error) {
      return { fds, error };
    }
  });
  const answers = jobs.map(({ id }, at) => {
    let { fds, error } = opened[at];
    for (const fd of fds) {
      try {
        if (error === null) fs.fsyncSync(fd);
      } catch (failure) {
        error = failure;
      }
      try {
        fs.closeSync(fd);
      } catch (failure) {
        error ??= failure;
      }
    }
    return error === null ? { id } : { id, error: { message: String(error && error.message || error), code: error && error.code } };
  });
  parentPort.postMessage(answers);
});
`;

interface Job {
  id: number;
  files: NewFile[];
  resolve(): void;
  reject(error: Error): void;
}

/**
 * Creates small files durably on a thread of their own (a vector store commit's two segments,
 * store-data.ts). Through the fs promises API each file is four thread-pool round trips (open,
 * write, sync, close), each waking a pool thread and then the event loop: ~0.12 ms of event-loop
 * CPU per file on the 2-core VM, paid per ingested file (issue 16). Here a commit is one message
 * each way, and commits that arrive while a batch is on the disk go out together in the next one
 * (group commit, as journal-file.ts does for lines). Durability is the same: open `wx` 0600, write,
 * fsync, close, before the promise resolves.
 */
class SyncedWriteThread {
  private worker: Worker | null = null;
  private readonly inFlight = new Map<number, Job>();
  private queued: Job[] = [];
  private nextId = 0;

  write(files: NewFile[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queued.push({ id: this.nextId++, files, resolve, reject });
      if (this.inFlight.size === 0) this.send();
    });
  }

  private send(): void {
    if (this.queued.length === 0) {
      this.worker?.unref();
      return;
    }
    const jobs = this.queued;
    this.queued = [];
    const worker = this.thread();
    worker.ref();
    for (const job of jobs) this.inFlight.set(job.id, job);
    // Each file's bytes copied into a buffer of their own and moved, not cloned: a Buffer may be a
    // view of Node's 8 KB pool, and cloning a view clones its whole ArrayBuffer.
    const transfer: ArrayBuffer[] = [];
    const message = jobs.map(({ id, files }) => ({
      id,
      files: files.map((file) => {
        const bytes = new Uint8Array(file.bytes);
        transfer.push(bytes.buffer);
        return { path: file.path, bytes };
      }),
    }));
    worker.postMessage(message, transfer);
  }

  private thread(): Worker {
    if (this.worker !== null) return this.worker;
    const worker = new Worker(WRITER_SOURCE, { eval: true });
    worker.unref();
    worker.on('message', (answers: Array<{ id: number; error?: { message: string; code?: string } }>) => {
      for (const answer of answers) {
        const job = this.inFlight.get(answer.id);
        if (job === undefined) continue;
        this.inFlight.delete(answer.id);
        if (answer.error === undefined) job.resolve();
        else job.reject(Object.assign(new Error(answer.error.message), answer.error.code === undefined ? {} : { code: answer.error.code }));
      }
      if (this.inFlight.size === 0) this.send();
    });
    // A thread that died (out of memory): what it owed fails, the next write starts a new one.
    const fail = (error: Error) => {
      if (this.worker !== worker) return;
      this.worker = null;
      const owed = [...this.inFlight.values()];
      this.inFlight.clear();
      for (const job of owed) job.reject(error);
      this.send();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the synced-write thread exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }
}

let writer: SyncedWriteThread | null = null;

/**
 * Creates each file (mode 0600, refused if it exists), writes it and fsyncs it, off the event
 * loop; resolves once every one is durable. On failure some may exist: the caller removes them.
 */
export function writeNewFilesSynced(files: NewFile[]): Promise<void> {
  writer ??= new SyncedWriteThread();
  return writer.write(files);
}
