// Helpers shared by the bench scripts (Linux /proc readings, child start-up lines, seeded data).
import { readFile } from 'node:fs/promises';

/** The first line a child process prints on stdout (its URL, port or key). */
export function firstLine(child) {
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout.on('data', (part) => {
      buffer += part;
      const newline = buffer.indexOf('\n');
      if (newline !== -1) resolve(buffer.slice(0, newline));
    });
    child.once('exit', (code) => reject(new Error(`process exited with ${code} before printing`)));
  });
}

/** utime + stime of a process in seconds, to turn req/s into req/s per core; with `thread`, of that thread alone (the main thread's id is the pid). */
export async function cpuSeconds(pid, thread) {
  const fields = (await readFile(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8')).split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Resident set size of a process in MB. */
export async function rssMb(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
}

/** A seeded pseudo-random source (mulberry32): every run of a bench sends the same data. */
export function seededRandom(seed) {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}
