import { Worker } from 'node:worker_threads';

/** One file to create: written whole, fsynced, mode 0600, refused if it exists (`wx`). */
export interface NewFile {
  path: string;
  bytes: Uint8Array;
}

/**
 * A step of a job: create a file (as NewFile), fsync a folder once the job's files are synced (so
 * their entries survive a power loss), or read a whole file.
 */
type Step = { path: string; bytes: Uint8Array } | { syncFolder: string } | { read: string };

/**
 * The disk thread's code (CommonJS, evaluated: the same source runs from `src/` under vitest and
 * from `dist/`). A message is a batch of jobs; every job's bytes are written (and files read)
 * first, then each created file is fsynced, so on ext4 the first sync commits the journal for
 * the whole batch and the others find little left to do; last, each folder a job asked for is
 * fsynced once for the whole batch (group commit: every entry the batch made is in it). The answer is `{ answers, folderSyncs }`: per job `{ id, read }` (the
 * contents of its read steps, in order) or `{ id, error: { message, code } }` (a failed job's
 * new files may exist: the caller removes what it named), and the count of folder fsyncs run.
 */
const WRITER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
function writeAll(fd, bytes) {
  let written = 0;
  while (written < bytes.length) written += fs.writeSync(fd, bytes, written, bytes.length - written);
}
// Into an array of its own, moved out whole (readFileSync's buffer would stay here as garbage).
// The files read are written once and never change, so the size from fstat is the size.
function readWhole(filePath) {
  const fd = fs.openSync(filePath, 'r');
  try {
    const bytes = new Uint8Array(fs.fstatSync(fd).size);
    let filled = 0;
    while (filled < bytes.length) {
      const count = fs.readSync(fd, bytes, filled, bytes.length - filled, null);
      if (count === 0) return bytes.slice(0, filled);
      filled += count;
    }
    return bytes;
  } finally {
    fs.closeSync(fd);
  }
}
function syncFolder(folder) {
  const fd = fs.openSync(folder, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
parentPort.on('message', (jobs) => {
  const written = jobs.map(({ steps }) => {
    const created = [];
    const folders = [];
    const read = [];
    try {
      for (const step of steps) {
        if (step.read !== undefined) {
          read.push(readWhole(step.read));
        } else if (step.syncFolder !== undefined) {
          folders.push(step.syncFolder);
        } else {
          const fd = fs.openSync(step.path, 'wx', 0o600);
          created.push(fd);
          writeAll(fd, step.bytes);
        }
      }
      return { created, folders, read, error: null };
    } catch (error) {
      return { created, folders, read, error };
    }
  });
  const outcomes = written.map((job) => {
    let { created, error } = job;
    for (const fd of created) {
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
    return error;
  });
  // Each folder once, after every file of the batch is synced; it fails only the jobs that asked.
  const folderErrors = new Map();
  written.forEach(({ folders }, at) => {
    if (outcomes[at] !== null) return;
    for (const folder of folders) {
      if (!folderErrors.has(folder)) {
        try {
          syncFolder(folder);
          folderErrors.set(folder, null);
        } catch (failure) {
          folderErrors.set(folder, failure);
        }
      }
      outcomes[at] ??= folderErrors.get(folder);
    }
  });
  const transfer = [];
  const answers = jobs.map(({ id }, at) => {
    const error = outcomes[at];
    if (error !== null) return { id, error: { message: String(error && error.message || error), code: error && error.code } };
    const { read } = written[at];
    for (const bytes of read) transfer.push(bytes.buffer);
    return { id, read };
  });
  // The written bytes go back too (the event loop drops them): left here, they would wait for this
  // mostly idle isolate's next GC, which counts them only as external memory (tens of MB of RSS).
  for (const { steps } of jobs) for (const step of steps) if (step.bytes !== undefined) transfer.push(step.bytes.buffer);
  parentPort.postMessage({ answers, folderSyncs: folderErrors.size }, transfer);
});
`;

interface Job {
  id: number;
  steps: Step[];
  resolve(read: Uint8Array[]): void;
  reject(error: Error): void;
}

/**
 * Does a job's file work on a thread of its own. Through the fs promises API each file written is
 * four thread-pool round trips (open, write, sync, close) and a folder fsync three, each waking a
 * pool thread and then the event loop: on the 2-core VM a round trip from idle costs ~0.1-0.15 ms
 * of CPU, paid several times per ingested file (issue 16).
 * Here a job is one message each way, and jobs that arrive while a batch is on the disk go out
 * together in the next one. Durability is the same: open `wx` 0600, write, fsync, close (or
 * open, fsync, close for a folder) before the promise resolves.
 */
class DiskThread {
  private worker: Worker | null = null;
  private readonly inFlight = new Map<number, Job>();
  private queued: Job[] = [];
  private nextId = 0;
  /** Folder fsyncs run so far (a test checks that a batch shares one). */
  folderSyncs = 0;

  constructor(private readonly name: string) {}

  run(steps: Step[]): Promise<Uint8Array[]> {
    return new Promise<Uint8Array[]>((resolve, reject) => {
      this.queued.push({ id: this.nextId++, steps, resolve, reject });
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
    const message = jobs.map(({ id, steps }) => ({
      id,
      steps: steps.map((step) => {
        if (!('bytes' in step)) return step;
        const bytes = new Uint8Array(step.bytes);
        transfer.push(bytes.buffer);
        return { ...step, bytes };
      }),
    }));
    worker.postMessage(message, transfer);
  }

  private thread(): Worker {
    if (this.worker !== null) return this.worker;
    const worker = new Worker(WRITER_SOURCE, { eval: true });
    worker.unref();
    worker.on('message', ({ answers, folderSyncs }: { answers: Array<{ id: number; read?: Uint8Array[]; error?: { message: string; code?: string } }>; folderSyncs: number }) => {
      this.folderSyncs += folderSyncs;
      for (const answer of answers) {
        const job = this.inFlight.get(answer.id);
        if (job === undefined) continue;
        this.inFlight.delete(answer.id);
        if (answer.error === undefined) job.resolve(answer.read ?? []);
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
    worker.on('exit', (code) => fail(new Error(`the ${this.name} exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }
}

/**
 * Two threads, so a request never waits behind background work: `background` takes ingestion's
 * work (a vector store commit's two segments, store-data.ts; the stored file it reads), `requests`
 * what a request waits for (an upload's bytes and folder entry). With both on one thread, uploads
 * slowed behind batches of segment fsyncs (10k A/B at load 7-10). Journal lines stay on the thread
 * pool (journal-file.ts): on one serial thread the three journals an upload and its attach write
 * (files, vector_store_files, the store's manifest) fdatasync one after another, not side by side,
 * and requests slowed (2k files at load 7-8: 82-89 files/s against 110-159).
 */
let background: DiskThread | null = null;
let requests: DiskThread | null = null;
const backgroundThread = (): DiskThread => (background ??= new DiskThread('background disk thread'));
const requestThread = (): DiskThread => (requests ??= new DiskThread('request disk thread'));

/**
 * Creates each file (mode 0600, refused if it exists), writes it and fsyncs it, off the event
 * loop; resolves once every one is durable. On failure some may exist: the caller removes them.
 */
export async function writeNewFilesSynced(files: NewFile[]): Promise<void> {
  await backgroundThread().run(files);
}

/**
 * A whole (small) file's contents, read on the disk thread: one message instead of the four
 * thread-pool round trips of a read stream or readFile (open, stat or read, read, close).
 */
export async function readWholeFile(filePath: string): Promise<Buffer> {
  const [bytes] = await backgroundThread().run([{ read: filePath }]);
  return Buffer.from(bytes!.buffer, bytes!.byteOffset, bytes!.byteLength);
}

/**
 * Creates `file` in `folder` (mode 0600, refused if it exists), fsyncs it, then fsyncs the folder
 * (shared by every file of the batch): resolves once the bytes and the folder entry would survive
 * a power loss, so a record naming the file may be written next. One message on the request
 * thread. On failure the file may exist: the caller removes it.
 */
export async function writeNewFileInFolderSynced(file: NewFile, folder: string): Promise<void> {
  await requestThread().run([file, { syncFolder: folder }]);
}

/** Folder fsyncs the request thread has run (a test checks that concurrent uploads share one). */
export function requestFolderSyncs(): number {
  return requests?.folderSyncs ?? 0;
}
