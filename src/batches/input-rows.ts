import { GatewayError } from '../errors/gateway-error.js';
import { LineTooLongError, type JsonlLine } from './jsonl.js';

/** Spec limit "Batch input file size 105 MB" (INFERENCE_3304). */
export const MAX_BATCH_FILE_BYTES = 105 * 1024 * 1024;

export interface BatchRow {
  /** 0-based position among the requests (blank lines do not count). */
  index: number;
  /** 1-based line number in the file, for messages. */
  line: number;
  custom_id: string;
  body: Record<string, unknown>;
}

export interface InputRules {
  endpoint: string;
  maxRequests: number;
}

const ROW_KEYS = new Set(['custom_id', 'method', 'url', 'body']);

function invalid(line: number, message: string, field?: string): GatewayError {
  return new GatewayError('INFERENCE_3303', `Line ${line}: ${message}`, { line, ...(field === undefined ? {} : { field }) });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The line rules of a batch input file (spec "Batch input line"), one line at a time: a line
 * that is not JSON → INFERENCE_3306; a wrong shape, method or url, a repeated custom_id →
 * INFERENCE_3303; more than `maxRequests` requests → INFERENCE_3305. Every error names its line
 * (details.line). State: the set of custom_ids seen and the count of requests.
 */
export class RowRules {
  private readonly seen = new Set<string>();
  /** Requests accepted so far (the index of the next one). */
  count = 0;

  constructor(private readonly rules: InputRules) {}

  /** The request on this line, null for a blank line; throws the line's GatewayError. */
  check(line: number, text: string): BatchRow | null {
    if (text.trim() === '') return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new GatewayError('INFERENCE_3306', `Line ${line} does not parse as JSON (${(error as Error).message}).`, { line });
    }
    if (!isObject(parsed)) throw invalid(line, 'each line must be a JSON object with custom_id, method, url and body.');
    for (const key of Object.keys(parsed)) {
      if (!ROW_KEYS.has(key)) throw invalid(line, `unknown field "${key}" (a line has custom_id, method, url and body).`, key);
    }
    const { custom_id: customId, method, url, body } = parsed;
    if (typeof customId !== 'string' || customId === '') throw invalid(line, 'custom_id must be a non-empty string.', 'custom_id');
    if (method !== 'POST') throw invalid(line, 'method must be "POST".', 'method');
    if (url !== this.rules.endpoint) throw invalid(line, `url is ${JSON.stringify(url)} but the batch endpoint is ${this.rules.endpoint}; every line must target it.`, 'url');
    if (!isObject(body)) throw invalid(line, 'body must be a JSON object (the request body of the endpoint).', 'body');
    if (this.seen.has(customId)) throw invalid(line, `custom_id "${customId}" appears twice; custom_id must be unique within the file.`, 'custom_id');
    this.seen.add(customId);
    if (this.count >= this.rules.maxRequests) {
      throw new GatewayError('INFERENCE_3305', `The file has more than ${this.rules.maxRequests} requests (line ${line}); split it into several batches.`, { line, max_requests: this.rules.maxRequests });
    }
    const row = { index: this.count, line, custom_id: customId, body };
    this.count += 1;
    return row;
  }
}

/** The refusal of a file without a single request. */
export function emptyFileError(): GatewayError {
  return new GatewayError('INFERENCE_3303', 'The file has no requests (one JSON object per line expected).', { line: null });
}

/** A line over the length limit, as the line's error. */
export function lineTooLong(error: LineTooLongError): GatewayError {
  return invalid(error.line, `the line is longer than ${error.maxBytes} bytes.`);
}

/**
 * The requests of a batch input file, checked line by line as they stream by (RowRules), the
 * first problem thrown; an over-long line or an empty file → INFERENCE_3303. Blank lines are
 * skipped. Memory: one line plus the set of custom_ids seen.
 */
export async function* batchRows(lines: AsyncIterable<JsonlLine>, rules: InputRules): AsyncGenerator<BatchRow> {
  const checker = new RowRules(rules);
  const iterator = lines[Symbol.asyncIterator]();
  while (true) {
    let next: IteratorResult<JsonlLine>;
    try {
      next = await iterator.next();
    } catch (error) {
      if (error instanceof LineTooLongError) throw lineTooLong(error);
      throw error;
    }
    if (next.done) break;
    const row = checker.check(next.value.line, next.value.text);
    if (row !== null) yield row;
  }
  if (checker.count === 0) throw emptyFileError();
}

/** Reads a whole input once to check it; returns the number of requests. */
export async function countValidRows(lines: AsyncIterable<JsonlLine>, rules: InputRules): Promise<number> {
  let count = 0;
  for await (const row of batchRows(lines, rules)) count = row.index + 1;
  return count;
}
