import type { Readable } from 'node:stream';

export interface JsonlLine {
  /** 1-based line number in the file. */
  line: number;
  text: string;
}

/** A line longer than the limit: reported with its line number instead of being buffered. */
export class LineTooLongError extends Error {
  constructor(
    readonly line: number,
    readonly maxBytes: number,
  ) {
    super(`line ${line} is longer than ${maxBytes} bytes`);
    this.name = 'LineTooLongError';
  }
}

const NEWLINE = 0x0a;

/**
 * Splits a byte stream into lines with their numbers, holding at most one line (capped at
 * `maxLineBytes`) plus one chunk in memory, so a 105 MB file is read in constant memory.
 * `\r\n` endings are accepted; blank lines are yielded too (callers decide).
 */
export async function* readJsonlLines(source: Readable | AsyncIterable<Buffer>, maxLineBytes: number): AsyncGenerator<JsonlLine> {
  let carry: Buffer[] = [];
  let carryBytes = 0;
  let line = 0;
  const finish = (tail: Buffer): string => {
    const bytes = carry.length === 0 ? tail : Buffer.concat([...carry, tail], carryBytes + tail.length);
    carry = [];
    carryBytes = 0;
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
    return bytes.toString('utf8', 0, end);
  };
  for await (const chunk of source as AsyncIterable<Buffer>) {
    let start = 0;
    let newline = chunk.indexOf(NEWLINE, start);
    while (newline !== -1) {
      line += 1;
      if (carryBytes + newline - start > maxLineBytes) throw new LineTooLongError(line, maxLineBytes);
      yield { line, text: finish(chunk.subarray(start, newline)) };
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      carryBytes += rest.length;
      if (carryBytes > maxLineBytes) throw new LineTooLongError(line + 1, maxLineBytes);
      carry.push(rest);
    }
  }
  if (carryBytes > 0) {
    line += 1;
    yield { line, text: finish(Buffer.alloc(0)) };
  }
}
