import { Worker } from 'node:worker_threads';

/** One file to create: written whole, fsynced, mode 0600, refused if it exists (`wx`). */
export interface NewFile {
  path: string;
  bytes: Uint8Array;
}

/** A step of a job: create a file (as NewFile), or read a whole file. */
type Step = { path: string; bytes: Uint8Array } | { read: string };

/**
 * The disk thread's code (CommonJS, evaluated: the same source runs from `src/` under vitest and
 * from `dist/`). A message is a batch of jobs; every job's bytes are written (and files read)
 * first, then each written file is synced, so on ext4 the first sync commits the journal for the
 * whole batch and the others find little left to do. A job answers `{ id, read }` (the contents of
 * its read steps, in order) or `{ id, error: { message, code } }`; a failed job's new files may
 * exist (the caller removes what it named).
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
parentPort.on('message', (jobs) => {
  const written = jobs.map(({ steps }) => {
    const created = [];
    const read = [];
    try {
      for (const step of steps) {
        if (step.read !== undefined) {
          read.push(readWhole(step.read));
        } else if (step.path !== undefined) {
          const fd = fs.openSync(step.path, 'wx', 0o600);
          created.push(fd);
          writeAll(fd, step.bytes);
        }
      }
      return { created, read, error: null };
    } catch (error) {
      return { created, read, error };
    }
  });
  const transfer = [];
  const answers = jobs.map(({ id }, at) => {
    let { created, read, error } = written[at];
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
    if (error !== null) return { id, error: { message: String(error && error.message || error), code: error && error.code } };
    for (const bytes of read) transfer.push(bytes.buffer);
    return { id, read };
  });
  // The written bytes go back too (the event loop drops them): left here, they would wait for this
  // mostly idle isolate's next GC, which counts them only as external memory (tens of MB of RSS).
  for (const { steps } of jobs) for (const step of steps) if (step.bytes !== undefined) transfer.push(step.bytes.buffer);
  parentPort.postMessage(answers, transfer);
});
`;

interface Job {
  id: number;
  steps: Step[];
  resolve(read: Uint8Array[]): void;
  reject(error: Error): void;
}

/**
 * Creates small files durably, and reads small files, on a thread of their own: background
 * ingestion's work (a vector store commit's two segments, store-data.ts; the stored file it reads,
 * file-bytes.ts). Through the fs promises API each file written is four thread-pool round trips
 * (open, write, sync, close), each waking a pool thread and then the event loop: ~0.12 ms of
 * event-loop CPU per file on the 2-core VM, paid per ingested file (issue 16). Here a commit is one
 * message each way, and commits that arrive while a batch is on the disk go out together in the
 * next one. Durability is the same: open `wx` 0600, write, fsync, close, before the promise
 * resolves. Request paths (journal lines, uploads) stay on the thread pool: one serial thread
 * would make them wait behind a batch of fsyncs.
 */
class DiskThread {
  private worker: Worker | null = null;
  private readonly inFlight = new Map<number, Job>();
  private queued: Job[] = [];
  private nextId = 0;

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
        if ('read' in step) return step;
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
    worker.on('message', (answers: Array<{ id: number; read?: Uint8Array[]; error?: { message: string; code?: string } }>) => {
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
    worker.on('exit', (code) => fail(new Error(`the disk thread exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }
}

let writer: DiskThread | null = null;

/**
 * Creates each file (mode 0600, refused if it exists), writes it and fsyncs it, off the event
 * loop; resolves once every one is durable. On failure some may exist: the caller removes them.
 */
export async function writeNewFilesSynced(files: NewFile[]): Promise<void> {
  writer ??= new DiskThread();
  await writer.run(files);
}

/**
 * A whole (small) file's contents, read on the disk thread: one message instead of the four
 * thread-pool round trips of a read stream or readFile (open, stat or read, read, close).
 */
export async function readWholeFile(filePath: string): Promise<Buffer> {
  writer ??= new DiskThread();
  const [bytes] = await writer.run([{ read: filePath }]);
  return Buffer.from(bytes!.buffer, bytes!.byteOffset, bytes!.byteLength);
}
