import type { z } from 'zod';
import { isGatewayError } from '../errors/gateway-error.js';
import { chatCompletionSchema } from '../endpoints/validation/chat-schema.js';
import { embeddingsSchema, imagesSchema } from '../endpoints/validation/embeddings-schema.js';
import { describeIssue } from '../endpoints/validation/issue-text.js';
import { parseForwardCompatible } from '../endpoints/validation/forward-compatible.js';
import { fieldPath } from '../endpoints/validation/zod-issues.js';
import { knownKeysAt } from '../config/known-keys.js';
import { FLAVORS } from '../routing/model-name.js';
import { didYouMean } from '../util/did-you-mean.js';
import type { BatchEndpoint } from './batch-record.js';
import { emptyFileError, lineTooLong, RowRules } from './input-rows.js';
import { LineTooLongError, type JsonlLine } from './jsonl.js';

/**
 * The check `igw batch submit` runs before uploading (DESIGN §1 "local checks"): every problem
 * of the file in one pass, each with its line, instead of the first one only. It applies the
 * gateway's own rules: the line rules (RowRules), the endpoint's request schema (the one the
 * row will meet when it runs), batch-only rules (no `stream`), and, given the gateway's model
 * list, the models each row names.
 */

export interface InputProblem {
  /** 1-based line, null for a problem of the whole file. */
  line: number | null;
  /** Where in the line (`body.messages[0].role`), when one field is at fault. */
  field?: string;
  /** What is wrong, phrased to follow the field name when there is one. */
  message: string;
  /** The spec code the gateway would answer with, for line-level refusals. */
  code?: string;
  /** Worth saying, but the row runs anyway (an unknown field the gateway drops). */
  warning?: boolean;
}

export interface CheckedInput {
  /** Requests in the file (lines that are JSON objects with a unique custom_id, blank lines aside). */
  rows: number;
  problems: InputProblem[];
  /** Each model a row names, with the lines naming it (checked against the gateway by modelProblems). */
  models: Map<string, number[]>;
}

const SCHEMAS: Record<BatchEndpoint, z.ZodType> = {
  '/v1/chat/completions': chatCompletionSchema,
  '/v1/embeddings': embeddingsSchema,
  '/v1/images/generations': imagesSchema,
};

/** Model types each batch endpoint runs (as the endpoints resolve them). */
export const MODEL_TYPES: Record<BatchEndpoint, readonly string[]> = {
  '/v1/chat/completions': ['chat'],
  '/v1/embeddings': ['embeddings'],
  '/v1/images/generations': ['image'],
};

/** `FILE:LINE: body.messages must not be empty`, `FILE: the file has no requests`. */
export function problemText(file: string, problem: InputProblem): string {
  const where = problem.line === null ? file : `${file}:${problem.line}`;
  const code = problem.code === undefined ? '' : ` (${problem.code})`;
  if (problem.field === undefined) return `${where}: ${problem.message}${code}`;
  // Phrases written to follow the field name read as a sentence; others after a colon.
  const joiner = /^(is|must|has|needs) /.test(problem.message) ? ' ' : ': ';
  return `${where}: ${problem.field}${joiner}${problem.message}${code}`;
}

/** Problems of one request body, all of them (the endpoint itself stops at the first). */
export function bodyProblems(endpoint: BatchEndpoint, line: number, body: Record<string, unknown>): InputProblem[] {
  const problems: InputProblem[] = [];
  if (body['stream'] === true) {
    problems.push({ line, field: 'body.stream', message: 'must be left out: a batch row gets one complete response, never a stream' });
  }
  // Unknown names are the gateway's to drop (DESIGN §5 forward compatibility): only known fields are judged here.
  const parsed = parseForwardCompatible(SCHEMAS[endpoint], body, false);
  if (parsed.success) {
    for (const field of parsed.unknownFields) {
      // A top-level typo is the likely case: name the field it resembles.
      const hint = /^[\w-]+$/.test(field) ? didYouMean(field, knownKeysAt(SCHEMAS[endpoint], [])) : '';
      problems.push({ line, field: `body.${field}`, message: `is not a field igw knows: dropped or refused, depending on the endpoint and server.strict_params.${hint}`, warning: true });
    }
  } else {
    for (const issue of parsed.issues) {
      const { path, text } = describeIssue(issue as never, body);
      problems.push({ line, field: path.length === 0 ? 'body' : `body.${fieldPath(path)}`, message: text });
    }
  }
  // Chat may take its model from a blueprint; everywhere else a row names it (images: the default image model).
  const blueprint = body['blueprint_id'] !== undefined || body['blueprint_config'] !== undefined;
  if (endpoint === '/v1/chat/completions' && body['model'] === undefined && !blueprint) {
    problems.push({ line, field: 'body.model', message: 'is required (or a blueprint that names the model)' });
  }
  return problems;
}

/** Reads a whole batch input once and lists every problem it can know without running it. */
export async function checkBatchInput(lines: AsyncIterable<JsonlLine>, endpoint: BatchEndpoint): Promise<CheckedInput> {
  const rules = new RowRules({ endpoint, maxRequests: Number.POSITIVE_INFINITY });
  const problems: InputProblem[] = [];
  const models = new Map<string, number[]>();
  const iterator = lines[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<JsonlLine>;
    try {
      next = await iterator.next();
    } catch (error) {
      // The reader cannot go past an over-long line: report it as the last problem.
      if (!(error instanceof LineTooLongError)) throw error;
      const refusal = lineTooLong(error);
      problems.push({ line: error.line, message: `${stripLine(refusal.message)} (lines after it were not checked)`, code: refusal.code });
      break;
    }
    if (next.done) break;
    const { line, text } = next.value;
    let row;
    try {
      row = rules.check(line, text);
    } catch (error) {
      if (!isGatewayError(error)) throw error;
      problems.push({ line, message: stripLine(error.message), code: error.code });
      continue;
    }
    if (row === null) continue;
    problems.push(...bodyProblems(endpoint, line, row.body));
    const model = row.body['model'];
    if (typeof model === 'string' && model !== '') {
      const seen = models.get(model);
      if (seen === undefined) models.set(model, [line]);
      else seen.push(line);
    }
  }
  if (rules.count === 0 && problems.length === 0) {
    const refusal = emptyFileError();
    problems.push({ line: null, message: stripLine(refusal.message), code: refusal.code });
  }
  return { rows: rules.count, problems, models };
}

/** The gateway's messages start with "Line N"; the CLI prints FILE:N in front instead. */
function stripLine(message: string): string {
  const text = message.replace(/^Line \d+:? /, '');
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/** One model of the gateway's list (GET /v1/models?include_meta=true). */
export interface ListedModel {
  id: string;
  type: string | undefined;
}

/**
 * Problems of the models the rows name, against the gateway's model list: an unknown id or
 * flavor (with the closest one), or a model of the wrong type for the endpoint. One problem per
 * line that names it.
 */
export function modelProblems(models: Map<string, number[]>, listed: readonly ListedModel[], endpoint: BatchEndpoint): InputProblem[] {
  const byId = new Map(listed.map((model) => [model.id, model]));
  const problems: InputProblem[] = [];
  for (const [requested, lines] of models) {
    const message = modelProblem(requested, byId, endpoint);
    if (message !== null) for (const line of lines) problems.push({ line, field: 'body.model', message });
  }
  return problems;
}

function modelProblem(requested: string, byId: Map<string, ListedModel>, endpoint: BatchEndpoint): string | null {
  const colon = requested.lastIndexOf(':');
  const id = colon === -1 ? requested : requested.slice(0, colon);
  if (colon !== -1) {
    const suffix = requested.slice(colon + 1);
    if (!(FLAVORS as readonly string[]).includes(suffix)) {
      const flavors = FLAVORS.map((flavor) => `:${flavor}`);
      return `"${requested}" has an unknown flavor ":${suffix}" (valid: ${flavors.join(' ')}).${didYouMean(`:${suffix}`, flavors)}`;
    }
  }
  const model = byId.get(id);
  if (model === undefined) return `unknown model "${id}" (igw models lists the models of this key).${didYouMean(id, byId.keys())}`;
  const types = MODEL_TYPES[endpoint];
  if (model.type !== undefined && !types.includes(model.type)) {
    const fitting = [...byId.values()].filter((candidate) => candidate.type !== undefined && types.includes(candidate.type)).map((candidate) => candidate.id);
    return `"${id}" is ${/^[aeiou]/.test(model.type) ? 'an' : 'a'} ${model.type} model; ${endpoint} runs ${types.join(' or ')} models${fitting.length === 0 ? '' : ` such as "${fitting[0]}"`}`;
  }
  return null;
}
